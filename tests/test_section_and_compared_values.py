"""Answer selection given a ranking (twenty-second session, issue 8; documents written for this test).

- A cause question whose best-ranked sentence sits in a document without a section of the asked kind (a team
  directory's "The delivery trucks … are his" for "진짜 원인은 뭐였어요?") is answered from the section of that kind
  ("## 원인") of a document in the context, when that document's best sentence ranks close to the best.
- A comparison of values ("How many taps does Mangwon have compared with Danyang?") quotes, for each compared name,
  a sentence that states a value of the asked kind, not the better-ranked sentence that only names the place.

The ranking is the input here (``_rank_sentences`` is replaced by a fixed list of candidates): what is tested is the
choice made from it, which a real embedder's ranking would make hard to pin down.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.answertype import NONE, STRONG
from rag.engines.offline.candidates import Candidate
from rag.engines.offline.coverage import coverage_of, question_terms
from rag.types import Retrieved

TEAM = ("# Team directory\n\n**Minho Seo** leads Logistics. The delivery trucks, the cold store at Gapyeong and the keg "
        "fleet are his; so is the call to hold back a delivery when a truck's cooling is in doubt.\n")
REVIEW = ("# 홍대점 생맥주 거품 문제 검토 (2025년 5월)\n\n## 요약\n\n5월 연휴 동안 홍대점 생맥주가 거품으로 넘쳐 제대로 팔 수 "
          "없었다.\n\n## 원인\n\n배송 트럭과 케그에는 문제가 없었다. 실제 원인은 새로 깐 맥주 라인이었다. 라인 길이가 8m에서 "
          "3m로 짧아졌는데 가스 압력은 2.6bar 그대로였다.\n")
# no name or number in the question: neither document is told apart by what the question names
CAUSE_Q = "생맥주 거품이 넘친 게 배송 트럭 냉장고가 고장 나서라던데, 진짜 원인은 뭐였어요?"


@pytest.fixture
def engine(data_dir):
    from tests.support.kb import make_settings

    return OfflineEngine(make_settings(data_dir), clock=lambda: date(2026, 12, 1))


def _doc(i: int, source: str, text: str) -> Retrieved:
    return Retrieved(id=f"d{i}:0", text=text, source=source, score=0.9, tool="vector", doc_id=f"d{i}", chunk_index=0)


def _cand(terms, rank, pos, index, text, *, heading="", scoped=False, fits=NONE, semantic=0.5) -> Candidate:
    return Candidate(rank, pos, index, text, coverage_of(terms, text), semantic, heading, scoped, fits=fits)


def _select(engine, monkeypatch, question, docs, ranked):
    terms, _ = question_terms(question)
    made = [_cand(terms, *c[:4], **c[4]) for c in ranked]
    monkeypatch.setattr(engine, "_rank_sentences", lambda *a, **k: [Candidate(**vars(c)) for c in made])
    return [c.text for c in engine._select(question, terms, docs)]


def _cause_ranking(review_best: float):
    return [
        (1.09, 0, 1, "The delivery trucks, the cold store at Gapyeong and the keg fleet are his; so is the call to "
                     "hold back a delivery when a truck's cooling is in doubt.", {"semantic": 0.87}),
        (review_best, 1, 2, "배송 트럭과 케그에는 문제가 없었다.", {"heading": "원인", "scoped": True}),
        (review_best - 0.02, 1, 3, "실제 원인은 새로 깐 맥주 라인이었다.", {"heading": "원인", "scoped": True}),
        (review_best - 0.05, 1, 4, "라인 길이가 8m에서 3m로 짧아졌는데 가스 압력은 2.6bar 그대로였다.",
         {"heading": "원인", "scoped": True}),
        (0.60, 1, 1, "5월 연휴 동안 홍대점 생맥주가 거품으로 넘쳐 제대로 팔 수 없었다.", {"heading": "요약"}),
    ]


def test_cause_section_of_another_document_answers_when_the_best_sentence_has_none(engine, monkeypatch):
    docs = [_doc(0, "team.md", TEAM), _doc(1, "review.md", REVIEW)]
    quoted = _select(engine, monkeypatch, CAUSE_Q, docs, _cause_ranking(0.86))
    assert quoted[:3] == ["배송 트럭과 케그에는 문제가 없었다.", "실제 원인은 새로 깐 맥주 라인이었다.",
                          "라인 길이가 8m에서 3m로 짧아졌는데 가스 압력은 2.6bar 그대로였다."], quoted  # read whole
    assert not any("delivery trucks" in q for q in quoted), quoted


def test_a_cause_section_ranked_far_below_does_not_take_over(engine, monkeypatch):
    docs = [_doc(0, "team.md", TEAM), _doc(1, "review.md", REVIEW)]
    quoted = _select(engine, monkeypatch, CAUSE_Q, docs, _cause_ranking(0.40))  # under 0.6 x the best: not close
    assert quoted[0].startswith("The delivery trucks"), quoted
    assert not any("2.6bar" in q for q in quoted), quoted


OVERVIEW = ("# 회사 개요\n\n| 탭룸 | 위치 | 규모 |\n|---|---|---|\n| 서울 망원점 탭룸 | 서울 마포구 망원동 | 탭 24개, 좌석 96석 |\n"
            "| 단양 본점 탭룸 | 단양군 단양읍 | 탭 16개, 좌석 70석 |\n")
PEOPLE = ("# Team directory\n\n**Narae Seok** leads Taproom Operations across Danyang and Mangwon.\n"
          "She spends most of the week in the cellar of the Mangwon taproom.\n"
          "He came to Danyang in 2017.\n")


def test_a_comparison_of_values_quotes_each_sides_value(engine, monkeypatch):
    question = "How many taps does the Mangwon taproom have compared with the original one in Danyang?"
    docs = [_doc(0, "people.md", PEOPLE), _doc(1, "overview.md", OVERVIEW)]
    ranked = [
        (0.71, 0, 1, "She spends most of the week in the cellar of the Mangwon taproom.", {"semantic": 1.0}),
        (0.70, 0, 2, "He came to Danyang in 2017.", {"semantic": 0.9}),
        (0.64, 1, 3, "| 서울 망원점 탭룸 | 서울 마포구 망원동 | 탭 24개, 좌석 96석 |", {"fits": STRONG}),
        (0.59, 1, 4, "| 단양 본점 탭룸 | 단양군 단양읍 | 탭 16개, 좌석 70석 |", {"fits": STRONG}),
    ]
    quoted = _select(engine, monkeypatch, question, docs, ranked)
    assert any("탭 24개" in q for q in quoted) and any("탭 16개" in q for q in quoted), quoted
    assert not any(q.startswith("She spends") for q in quoted), quoted


FAQ = "# Guest FAQ\n\nHot water runs from 06:00 to 23:00 in every room.\n"
DAEGU = ("# Daegu guesthouse, March 2025: cold showers\n\n## Root cause\n\nThe boiler's new controller switched to "
         "summer mode after a firmware update.\n")


def test_the_document_naming_the_event_still_wins_when_it_ranks_far_below(engine, monkeypatch):
    # the rule before this session: a section that names more of the question (Daegu, March, 2025) answers, however
    # low its best sentence ranks
    question = "Why were the showers cold at the Daegu guesthouse in March 2025?"
    docs = [_doc(0, "faq.md", FAQ), _doc(1, "daegu.md", DAEGU)]
    ranked = [(1.0, 0, 1, "Hot water runs from 06:00 to 23:00 in every room.", {}),
              (0.5, 1, 2, "The boiler's new controller switched to summer mode after a firmware update.",
               {"heading": "Root cause", "scoped": True})]
    quoted = _select(engine, monkeypatch, question, docs, ranked)
    assert quoted[0].startswith("The boiler's new controller"), quoted


def test_a_procedure_question_keeps_the_best_sentences_document(engine, monkeypatch):
    # procedure cues are broad ("steps", "fix"): another document's "## Procedure" section within 0.6 of the best
    # does not take over when it names nothing more of the question
    faq = "# Badge FAQ\n\nTo reset your badge code, hold the badge to the reader for ten seconds.\n"
    drill = "# Fire drill\n\n## Procedure\n\nLeave by the nearest stairs and gather at the car park.\n"
    docs = [_doc(0, "badge.md", faq), _doc(1, "drill.md", drill)]
    ranked = [(1.0, 0, 1, "To reset your badge code, hold the badge to the reader for ten seconds.", {}),
              (0.62, 1, 2, "Leave by the nearest stairs and gather at the car park.",
               {"heading": "Procedure", "scoped": True})]
    quoted = _select(engine, monkeypatch, "What are the steps to reset my badge code?", docs, ranked)
    assert quoted[0].startswith("To reset your badge code"), quoted  # (a second source may follow it, as before)
