"""Issue 8, nineteenth session: two mechanisms that do not depend on any corpus's words.

- Answer selection: among the sentences of a document, a question's Chinese word that the Korean text holds only by
  its Sino-Korean reading (补贴 … 通信费 ↔ 통신비) tells the sentence that says it apart. Grading still does not weigh
  the reading as evidence that the document answers (docs/evaluation.md, fifth round).
- Retrieval: a name that more than half of the documents carry (the organisation's own) is no evidence for any of
  them; the name channel leaves it out, so it no longer votes for every document in another script that mentions the
  organisation over the chunk that answers.

Documents written for this test (a made-up design agency, 온누리디자인 / Onnuri Design)."""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.coverage import question_terms
from rag.types import Retrieved

POLICY_KO = ("제3조 (재택근무)\n"
             "① 재택근무는 주 3일까지 할 수 있다.\n"
             "② 신규 입사자는 첫 달에 재택근무를 할 수 없다.\n"
             "③ 재택근무자에게는 통신비 월 4만 원을 지원한다.\n\n"
             "제4조 (출장)\n"
             "해외 출장은 회사 노트북만 써야 하며, 출발 7일 전까지 총무팀에 신청한다.\n")


@pytest.fixture
def engine(data_dir):
    from tests.support.kb import make_settings

    return OfflineEngine(make_settings(data_dir), clock=lambda: date(2026, 12, 1))


def test_a_sino_korean_reading_picks_the_sentence_for_its_part(engine, monkeypatch):
    question = "我下个月转正了，想问一周最多能在家办公几天？远程办公的话，公司每个月补贴多少通信费？"
    docs = [Retrieved(id="policy#1", text=POLICY_KO, source="policy.txt", score=1.0, tool="vector",
                      doc_id="policy", chunk_index=1)]
    part = "公司每个月补贴多少通信费"

    def ranks() -> dict[str, float]:
        return {c.text: c.rank for c in engine._rank_sentences(part, question_terms(part)[0], docs)}

    with_reading = ranks()
    import rag.engines.offline.selection as selection

    monkeypatch.setattr(selection, "SINO_KOREAN", "(no reading)")
    without = ranks()
    monkeypatch.undo()
    # 통신비 is 通信费 read in Korean: the sentence that says it gains over the others of the same document
    says = next(t for t in with_reading if "통신비" in t)
    assert with_reading[says] > without[says], (with_reading, without)
    assert with_reading[says] == max(with_reading.values()), with_reading
    terms, _ = question_terms(question)
    quoted = [c.text for c in engine._select(question, terms, docs)]
    assert any("통신비 월 4만 원" in t for t in quoted), quoted
    assert any("주 3일" in t for t in quoted), quoted


def test_grading_still_does_not_weigh_the_reading(engine):
    from rag.engines.offline.coverage import checkable_terms, coverage_of

    terms, _ = question_terms("公司每个月补贴多少通信费？")
    cov = coverage_of(terms, POLICY_KO)
    assert cov.how.get("通信费", "").startswith("via Sino-Korean"), cov.how
    check, _ = checkable_terms(terms, "公司每个月补贴多少通信费？", POLICY_KO, cov.as_written())
    assert "通信费" not in check


DOCS = {
    "lettering_orders_ko.txt": ("레터링 케이크 주문 안내\n\n"
                                "레터링 케이크는 픽업일 기준 4일 전까지 주문해야 한다.\n"
                                "2호 레터링 케이크는 41,000원이다.\n"),
    "onboarding_en.md": ("# Welcome to Onnuri Design\n\nOnnuri Design staff get a laptop on the first day. "
                         "Ask your buddy at Onnuri Design if anything is unclear.\n"),
    "suppliers_en.md": ("# Suppliers\n\nOnnuri Design buys paper from Hanji Mill. Onnuri Design pays suppliers "
                        "within 30 days.\n"),
    "history_en.md": ("# History\n\nOnnuri Design was founded in 2011. Onnuri Design opened a Busan studio in "
                      "2019.\n"),
    "press_en.md": "# Press\n\nOnnuri Design won a poster award in 2024.\n",
    "parking_ko.txt": "주차 안내\n\n직원 주차는 지하 2층을 쓴다.\n",
}


@pytest.fixture(scope="module")
def tool(tmp_path_factory):
    from tests.support.kb import vector_tool

    yield from vector_tool(tmp_path_factory.mktemp("common-name"), DOCS)


def test_a_name_most_documents_carry_is_no_evidence(tool, monkeypatch):
    question = "조카 생일이라 온누리디자인에 레터링 케이크를 맞추려고 하는데요, 픽업일 며칠 전까지 주문해야 돼요?"
    found = tool.run(question, 3)
    assert found[0].source == "lettering_orders_ko.txt", [(r.source, r.metadata) for r in found]
    # the organisation's name (in 4 of 6 documents) is left out of the name channel: no chunk ranks by it
    assert all(r.metadata["name_rank"] is None for r in found), [(r.source, r.metadata) for r in found]
    assert tool._telling(["l:onnuri"]) == []
    # a name fewer than half of the documents carry still counts
    assert tool._telling(["l:hanji"]) == ["l:hanji"]


HISTORY_KO = ("# 청솔도예 연혁\n\n"
              "주식회사 청솔도예(Cheongsol Ceramics, 중국어 이름 青松陶艺)는 이천에 공방과 전시장을 둔 도자기 회사다.\n\n"
              "- 2012년 4월 — 이천 신둔면에 첫 공방 개설\n"
              "- 2016년 9월 — 공방 옆에 상설 전시장 개관\n"
              "- 2020년 3월 — 여주에 도자기 보존 창고 준공\n"
              "- 2024년 6월 — 상하이 青瓷文化와 중국 판매 계약 체결\n"
              "- 2025년 2월 — 온라인 직영몰 오픈\n")


def test_words_held_by_their_reading_decide_over_a_line_naming_a_partner_in_chinese(engine):
    # thirty-fifth session: the words a Korean history holds by their Sino-Korean reading (保存 보존, 仓库 창고) count
    # in the share of the question its sentences are judged on by their words; before, that share was the names
    # alone, and the line that writes a partner's name in Chinese characters won the Chinese question by meaning
    question = "青松陶艺的瓷器保存仓库是哪年几月建成的？"
    docs = [Retrieved(id="history#0", text=HISTORY_KO, source="history_ko.md", score=1.0, tool="vector",
                      doc_id="history", chunk_index=0)]
    terms, _ = question_terms(question)
    ranked = engine._rank_sentences(question, terms, docs)
    assert ranked[0].text.startswith("2020년 3월"), [(c.text, round(c.rank, 3)) for c in ranked[:3]]
    partner = next(c for c in ranked if "青瓷文化" in c.text)
    assert ranked[0].rank > partner.rank + 0.2, [(c.text, round(c.rank, 3)) for c in ranked[:3]]
    quoted = [c.text for c in engine._select(question, terms, docs)]
    assert quoted and quoted[0].startswith("2020년 3월"), quoted
