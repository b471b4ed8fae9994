"""Issue 8: typed evidence across languages — when meaning and a stated value agree.

The offline engine cannot check a question's key terms in a document written in another language; it judges such a
document by meaning. A sentence that matches the question by meaning *and* states a value of the asked kind (an
amount for "how much", a count of stores for "how many stores") is typed evidence. What this file checks:

- the question's numbers must be stated where the typed sentence is (the sentence, its heading, its neighbours),
  Arabic or Chinese numerals alike: "2년 안에 몇 개" is answered by "两年内至少开设 6 家门店", "5년 안에" is not;
- "until when" (언제까지, 到什么时候) asks for the end of a period: a date without an end marker is a weak fit;
- a number of the question that the chunk lacks but a heading above its sentences states (the document's title
  "…, 14 March 2025") is found: a heading gives context to the sentences under it;
- the context-quality step lists the documents graded correct that hold typed evidence (``Quality.typed``, best
  first), which the agent reads: one such document → an answer; several → a partial answer
  (tests/test_other_languages.py), unless one sentence clearly leads the others and the question asks one value.

Documents written for this test (a ferry pier guide and a franchise summary in Chinese, a Korean café notice);
real knowledge base, real embedder, no mocks.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.answertype import STRONG, WEAK, asked_type, fit
from rag.engines.offline.evaluation import leading_typed
from rag.engines.offline.text import stated_numbers
from rag.tools.vector import VectorTool
from rag.types import Typed
from tests.support.kb import best_grade

TEXTS = {
    "pier_guide_zh.md": ("# 渡轮码头交通指南\n\n"
                         "从长途汽车站打车到渡轮码头约需 15,000 韩元。\n"
                         "码头一层有投币储物柜，每天 3,000 韩元。\n"
                         "渡轮码头的停车场可以停 120 辆车。\n"),
    "franchise_zh.txt": ("加盟协议摘要\n\n"
                         "第一条 合作方须在首店开业后两年内至少开设 6 家门店。\n"
                         "第二条 本协议有效期至 2031 年 6 月。\n"
                         "第三条 协议于 2026 年 6 月 3 日在青岛签署。\n"),
    "cafe_notice_ko.md": ("# 카페 이용 안내\n\n"
                          "카페는 매일 오전 8시에 문을 연다.\n"
                          "텀블러를 가져오면 음료 값에서 300원을 빼 준다.\n"
                          "단체 예약은 열 명부터 받는다.\n"),
    "incident_pump_en.md": ("# Incident report: fuel pump failure at the pier, 14 March 2025\n\n"
                            "## Summary\n\nThe ferry left 40 minutes late.\n\n"
                            "## Timeline\n\n" + "".join(
                                f"- At {h}:{m}0 the duty engineer logged the pump pressure and found it steady.\n"
                                for h in range(5, 9) for m in range(0, 6, 2)) + "\n"
                            "## Why the alarm stayed silent\n\n"
                            "The pressure alarm was switched off during a repair and nobody switched it back on.\n"
                            "The night guard therefore heard nothing.\n"),
    # pages on topics no question here asks about: enough sentences in each language for the per-language
    # statistics of the sentence channel (a real knowledge base has them)
    "pier_rules_zh.md": ("# 码头须知\n\n码头内禁止吸烟。\n宠物须装在笼子里才能上船。\n"
                         "遗失物品请到一楼服务台领取。\n大风天气时渡轮可能停航。\n请在开船前二十分钟检票。\n"),
    "staff_zh.md": ("# 员工守则\n\n员工每天早上七点前到岗。\n制服每周清洗一次。\n"
                    "新员工须参加为期三天的培训。\n请假须提前一天申请。\n工作时间不得使用手机。\n"),
    "library_ko.md": ("# 도서관 안내\n\n도서관은 월요일에 쉰다.\n책은 한 번에 다섯 권까지 빌릴 수 있다.\n"
                      "열람실에서는 음식을 먹을 수 없다.\n반납이 늦으면 하루 동안 대출이 멈춘다.\n"
                      "복사기는 2층에 있다.\n"),
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("typed-evidence"), TEXTS)
    yield kb
    kb.close()


@pytest.fixture(scope="module")
def engine(kb):
    return OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1))


@pytest.mark.parametrize("text, numbers", [
    ("合作方须在首店开业后三年内至少开设 8 家门店。", {"3", "8"}),
    ("出租车约需 12,000 韩元。", {"12000"}),
    ("十二个月内", {"12"}),
    ("两百人", {"200"}),
    ("一万五千韩元", {"15000"}),
    ("2025 年 9 月 15 日", {"2025", "9", "15"}),
    ("1.5시간 걸린다", {"1.5"}),
    ("57 pets were more than two weeks late", {"57", "2"}),  # English number words, two to twelve
    ("no one came; one of them left", set()),  # "one" is also a pronoun: not read as 1
    ("no numbers here", set()),
])
def test_stated_numbers_reads_arabic_and_chinese_numerals(text, numbers):
    assert stated_numbers(text) == numbers


@pytest.mark.parametrize("question", ["협약은 언제까지 유효해?", "Until when is the agreement valid?", "协议到什么时候？",
                                      "When does the lease expire?"])
def test_until_when_asks_for_the_end_of_a_period(question):
    asked = asked_type(question)
    assert asked.until and asked.label == "end date or time"
    assert fit(asked, "本协议有效期至 2031 年 6 月。") == STRONG
    assert fit(asked, "The lease runs until March 2028.") == STRONG
    assert fit(asked, "协议于 2026 年 6 月 3 日在青岛签署。") == WEAK  # a date, but not the end of anything
    assert fit(asked, "合作方须在首店开业后两年内至少开设 6 家门店。") < STRONG  # 至少 ("at least") is no end


def test_when_without_until_takes_any_date():
    asked = asked_type("협약은 언제 맺었어?")
    assert not asked.until
    assert fit(asked, "协议于 2026 年 6 月 3 日在青岛签署。") == STRONG


FRANCHISE_Q = "가맹점은 첫 매장을 열고 {n}년 안에 매장을 최소 몇 개 내야 해요?"


def test_typed_evidence_needs_the_question_numbers_where_the_value_is_stated(kb, engine):
    # the question's number is stated as a Chinese numeral (两年, "two years") next to the asked count
    _, g = best_grade(kb, engine, FRANCHISE_Q.format(n=2), "franchise_zh.txt")
    assert "typed evidence" in g.reason and "6 家门店" in g.reason, g.reason
    assert g.label == "correct" and "'2' as a Chinese numeral" in g.reason, g.reason
    # the same question about five years: the sentence matches as well by meaning, but states no "5"
    _, g = best_grade(kb, engine, FRANCHISE_Q.format(n=5), "franchise_zh.txt")
    assert "typed evidence" not in g.reason and g.label != "correct", g.reason


def test_quality_lists_the_correct_documents_with_typed_evidence(kb, engine):
    question = FRANCHISE_Q.format(n=2)
    doc, g = best_grade(kb, engine, question, "franchise_zh.txt")
    quality = engine.evaluate(question, [doc], [g])
    assert [t.source for t in quality.typed] == ["franchise_zh.txt"] and quality.typed[0].score >= 0.5
    assert "typed evidence in franchise_zh.txt" in quality.reason
    # a document without typed evidence, or not graded correct, is no rival answer
    others = [d for d in VectorTool(kb, kb.settings).run(question, 8) if d.source != "franchise_zh.txt"]
    assert others
    grades = [engine.grade(question, d) for d in others]
    both = engine.evaluate(question, [doc, *others], [g, *grades])
    rivals = {d.source for d, og in zip(others, grades) if og.label == "correct" and "typed evidence" in og.reason}
    listed = [t.source for t in both.typed]
    # best first; a rival whose sentence matches clearly worse is dropped, and the reason says so
    assert listed[0] == "franchise_zh.txt" and set(listed) <= {"franchise_zh.txt"} | rivals
    assert set(listed) == {"franchise_zh.txt"} | rivals or "franchise_zh.txt (" in both.reason


def test_one_typed_document_that_clearly_leads_is_the_answer():
    # several correct documents state a value of the asked kind: the one whose sentence matches clearly better
    # (rules.TYPED_LEAD) alone counts, when the question asks one value; a near tie, or a question asking several
    # values ("각각", "compare", 分别; two asked parts), keeps them all (the agent then answers partially)
    near = [Typed("fees_zh.md", 0.86), Typed("guide_en.md", 0.80), Typed("notice_zh.md", 0.77)]
    one = "차를 가지고 타면 출항 몇 분 전까지 대기선에 가야 해요?"
    typed, why = leading_typed(one, near)
    assert [t.source for t in typed] == ["fees_zh.md"] and why
    assert "fees_zh.md (0.86) leads" in why and "0.80" in why
    assert leading_typed(one, list(reversed(near)))[0] == near[:1]  # whatever order the documents came in
    tie = [Typed("fees_zh.md", 0.86), Typed("guide_en.md", 0.83)]
    assert leading_typed(one, [Typed("a.md", 0.86), Typed("b.md", 0.81)])[1]  # 0.86 − 0.81 is a lead of 0.05
    assert leading_typed(one, tie) == (tie, "")
    for several in ("개인 회원과 가족 회원의 연회비는 각각 얼마야?",
                    "What are the fees for adults and children respectively?",
                    "成人和儿童的票价分别是多少？", "택시비는 얼마고, 배 요금은 얼마예요?"):
        assert leading_typed(several, near) == (near, ""), several
    assert leading_typed(one, near[:1]) == (near[:1], "")


def test_a_date_in_the_document_title_counts_for_the_sentences_under_it(kb, engine):
    question = "What happened to the fuel pump on the pier in March 2025, and why was the alarm silent?"
    docs = [d for d in VectorTool(kb, kb.settings).run(question, 8) if d.source == "incident_pump_en.md"]
    assert any("2025" not in d.text for d in docs), "premise: a chunk under the title that does not repeat the date"
    for doc in docs:
        g = engine.grade(question, doc)
        assert "lacks '2025'" not in g.reason and "lacks '3'" not in g.reason, g.reason
        if "2025" not in doc.text:  # the chunk itself does not state it: the title does
            assert "'2025' in a heading" in g.reason, g.reason


def test_typed_evidence_survives_the_checkpointer():
    # replay forks a run from its checkpoints: a hop's typed evidence must load back as it was, not be blocked
    from rag.variants.base import Hop, checkpoint_serde

    serde = checkpoint_serde()
    hop = Hop(number=2, strategy="vector", query="q", typed=(Typed("fees_zh.md", 0.86), Typed("guide_en.md", 0.8)))
    back = serde.loads_typed(serde.dumps_typed({"hops": [hop]}))
    assert tuple(back["hops"][0].typed) == hop.typed and isinstance(back["hops"][0].typed[0], Typed)
