"""Answer selection for long questions (twenty-third session, issue 8; documents written for this test).

- Meaning fills the gap where words cannot decide: a long Korean question with a lead-in ("이번에 … 담당이 됐는데요,
  …") covers few of its key terms in any one sentence, so a same-language sentence was ranked by its few words while
  another language's sentences were ranked by meaning alone; an English sentence about something else then came
  first. When the best key-term score of any sentence is low, a sentence of a confirmed document whose meaning
  matches better than its words now gains the difference in proportion to what words could not decide
  (1 − the best key-term score). A question whose words a sentence covers keeps the ranking by words; a document
  the grader did not confirm gains nothing.
- A part's best sentence names the step and the next sentence states its value ("순환 — 세척 펌프로 세척액을 돌린다." +
  "중간에 멈추지 않고 20분 넘게 돌린다."): both are quoted.
- A Korean question joined by 고 with no comma ("… 몇 퍼센트로 타고 펌프로는 얼마나 오래 돌려야 해요?") asks two
  things (``parts.asked_parts``).

The semantic scores (``sentence_evidence``) or the ranking (``_rank_sentences``) are the input here: what is tested
is the ranking or the choice made from them, which a real embedder would make hard to pin down.
"""
from __future__ import annotations

from datetime import date

import numpy as np
import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.answertype import NONE, OTHER, STRONG
from rag.engines.offline.candidates import Candidate
from rag.engines.offline.coverage import coverage_of, question_terms
from rag.engines.offline.parts import asked_parts
from rag.engines.offline.semantics import SentenceEvidence
from rag.sentences import split_units
from rag.types import Retrieved

CLEANING = ("# 생맥주 라인 세척 기준\n\n"
            "세척은 탭룸 셀러 담당이 맡는다.\n"
            "세척액을 만들 때는 알칼리 세척제를 물에 섞어 1.8% 농도로 맞춘다.\n"
            "세척 펌프로 세척액을 라인 안에 돌린다.\n"
            "중간에 멈추지 않고 20분 넘게 돌린다.\n")
COMPLAINTS = "# Distributor terms\n\nA complaint about quality must be made within 5 working days of delivery.\n"
LONG_Q = ("이번에 제천 의림지점 셀러 담당이 됐는데요, 생맥주 라인 알칼리 세척할 때 세척제는 몇 퍼센트로 타고 펌프로는 "
          "얼마나 오래 돌려야 해요?")


@pytest.fixture
def engine(data_dir):
    from tests.support.kb import make_settings

    return OfflineEngine(make_settings(data_dir), clock=lambda: date(2026, 12, 1))


def _doc(i: int, source: str, text: str) -> Retrieved:
    return Retrieved(id=f"d{i}:0", text=text, source=source, score=0.9, tool="vector", doc_id=f"d{i}", chunk_index=0)


def _fixed_meaning(engine, monkeypatch, scores: dict[str, float]) -> None:
    """Every sentence's 0..1 semantic score, by its text (0 for one not listed)."""
    def evidence(question, docs):
        out = []
        for d in docs:
            units = split_units(d.text)[0]
            s = np.asarray([scores.get(u.text, 0.0) for u in units], dtype=np.float32)
            out.append(SentenceEvidence(units, s, s * 3.75, s))
        return out
    monkeypatch.setattr(engine, "sentence_evidence", evidence)


def _ranked(engine, question, docs, graded=None) -> list[str]:
    terms, _ = question_terms(question)
    return [c.text for c in engine._rank_sentences(question, terms, docs, False, graded) if not c.title]


PUMP = "세척 펌프로 세척액을 라인 안에 돌린다."
ENGLISH = "A complaint about quality must be made within 5 working days of delivery."
# the pump sentence matches the question best by meaning; its words cover three of sixteen key terms
MEANING = {PUMP: 0.9, "세척은 탭룸 셀러 담당이 맡는다.": 0.2, ENGLISH: 0.6}


def test_meaning_fills_the_gap_where_words_cannot_decide(engine, monkeypatch):
    _fixed_meaning(engine, monkeypatch, MEANING)
    docs = [_doc(0, "terms.md", COMPLAINTS), _doc(1, "cleaning.md", CLEANING)]
    ranked = _ranked(engine, LONG_Q, docs, graded=[0.0, 0.7])
    assert ranked.index(PUMP) < ranked.index(ENGLISH), ranked


JECHEON = "# Taprooms\n\nThe Jecheon Uirimji taproom opened in 2019.\n"


def test_a_name_matched_in_another_language_does_not_stop_the_fill(engine, monkeypatch):
    # an English document names one of the question's sixteen key terms ("제천" as "Jecheon"): its sentence covers all
    # the terms that document could hold (1 of 1), but only a sixteenth of the question; words have not decided,
    # so meaning still fills the gap in the confirmed Korean document (the best key-term score is weighed by share)
    _fixed_meaning(engine, monkeypatch, {**MEANING, "The Jecheon Uirimji taproom opened in 2019.": 0.1})
    docs = [_doc(0, "terms.md", COMPLAINTS), _doc(1, "cleaning.md", CLEANING), _doc(2, "taprooms.md", JECHEON)]
    ranked = _ranked(engine, LONG_Q, docs, graded=[0.0, 0.7, 0.0])
    assert ranked.index(PUMP) < ranked.index(ENGLISH), ranked


def test_an_unconfirmed_document_gains_nothing(engine, monkeypatch):
    # the grader confirmed only the English document: the Korean sentences keep their rank by words
    _fixed_meaning(engine, monkeypatch, MEANING)
    docs = [_doc(0, "terms.md", COMPLAINTS), _doc(1, "cleaning.md", CLEANING)]
    ranked = _ranked(engine, LONG_Q, docs, graded=[0.7, 0.0])
    assert ranked.index(ENGLISH) < ranked.index(PUMP), ranked


def test_words_decide_where_a_sentence_covers_them(engine, monkeypatch):
    # a short question whose words one sentence covers: the best key-term score is high, meaning adds (almost)
    # nothing, and the sentence with the words stays first however well another matches by meaning
    _fixed_meaning(engine, monkeypatch, {"세척은 탭룸 셀러 담당이 맡는다.": 0.1,
                                         "세척액을 만들 때는 알칼리 세척제를 물에 섞어 1.8% 농도로 맞춘다.": 0.95})
    docs = [_doc(1, "cleaning.md", CLEANING)]
    ranked = _ranked(engine, "세척은 누가 맡아? 셀러 담당?", docs, graded=[0.7])
    assert ranked[0] == "세척은 탭룸 셀러 담당이 맡는다.", ranked


def _cand(terms, rank, pos, index, text, *, fits=NONE, heading="", semantic=0.5) -> Candidate:
    return Candidate(rank, pos, index, text, coverage_of(terms, text), semantic, heading, False, fits=fits)


def _select_with(engine, monkeypatch, question, docs, rankings):
    """``_rank_sentences`` returns a fixed list per question text (the whole question, or one of its parts)."""
    def rank(q, terms, *a, **k):
        made = rankings.get(q, rankings["*"])
        return [_cand(terms, *c[:4], **c[4]) for c in made]
    monkeypatch.setattr(engine, "_rank_sentences", rank)
    terms, _ = question_terms(question)
    return engine._select(question, terms, docs)


def _rankings(next_heading: str):
    step = (0.40, 0, 3, "세척 펌프로 세척액을 라인 안에 돌린다.", {"fits": OTHER, "heading": "순환"})
    value = (0.20, 0, 4, "중간에 멈추지 않고 20분 넘게 돌린다.", {"fits": STRONG, "heading": next_heading})
    percent = (0.70, 0, 2, "세척액을 만들 때는 알칼리 세척제를 물에 섞어 1.8% 농도로 맞춘다.", {"fits": STRONG, "heading": "순환"})
    low_step = (0.05,) + step[1:]  # for the whole question and its first part the step ranks low (not quoted)
    parts = asked_parts(LONG_Q)
    return {"*": [percent, low_step, value], parts[0]: [percent, low_step, value], parts[1]: [step, value, percent]}


def test_the_value_after_a_parts_best_sentence_is_quoted(engine, monkeypatch):
    docs = [_doc(0, "cleaning.md", CLEANING)]
    picked = _select_with(engine, monkeypatch, LONG_Q, docs, _rankings("순환"))
    texts = [c.text for c in picked]
    assert "중간에 멈추지 않고 20분 넘게 돌린다." in texts, texts
    assert "세척 펌프로 세척액을 라인 안에 돌린다." in texts, texts
    why = {c.text: c.why for c in picked}
    assert why["중간에 멈추지 않고 20분 넘게 돌린다."].startswith("states the duration part 2 asks for"), why


def test_a_value_under_another_heading_is_not_taken_for_the_part(engine, monkeypatch):
    docs = [_doc(0, "cleaning.md", CLEANING)]
    picked = _select_with(engine, monkeypatch, LONG_Q, docs, _rankings("헹굼"))
    assert not any("after its best match" in c.why for c in picked), [(c.text, c.why) for c in picked]


def test_a_value_already_quoted_is_not_quoted_twice(engine, monkeypatch):
    # the whole question's quotes hold the duration already: the part adds its best sentence, not the value again
    docs = [_doc(0, "cleaning.md", CLEANING)]
    rankings = _rankings("순환")
    rankings["*"] = [(0.75,) + rankings["*"][2][1:], rankings["*"][0], rankings["*"][1]]
    texts = [c.text for c in _select_with(engine, monkeypatch, LONG_Q, docs, rankings)]
    assert texts.count("중간에 멈추지 않고 20분 넘게 돌린다.") == 1, texts
    assert "세척 펌프로 세척액을 라인 안에 돌린다." in texts, texts


def test_a_part_nothing_speaks_to_takes_no_value_after_it(engine, monkeypatch):
    # the part's best sentence shares none of the part's words and matches it poorly by meaning: not on topic, so the
    # sentence after it is not quoted for the part either
    docs = [_doc(0, "cleaning.md", CLEANING)]
    rankings = _rankings("순환")
    off = (0.40, 0, 3, "세척이 끝나면 기록지에 적는다.", {"fits": OTHER, "heading": "순환", "semantic": 0.05})
    rankings[asked_parts(LONG_Q)[1]] = [off, rankings["*"][2]]
    picked = _select_with(engine, monkeypatch, LONG_Q, docs, rankings)
    assert not any("after its best match" in c.why for c in picked), [(c.text, c.why) for c in picked]


@pytest.mark.parametrize("question, parts", [
    (LONG_Q, ["이번에 제천 의림지점 셀러 담당이 됐는데요, 생맥주 라인 알칼리 세척할 때 세척제는 몇 퍼센트로 타고",
              "펌프로는 얼마나 오래 돌려야 해요"]),
    ("언제 열고 몇 시에 닫아요?", ["언제 열고", "몇 시에 닫아요"]),
    # the clause before 고 asks nothing: one question
    ("환불 받고 싶은데 며칠 걸려요?", ["환불 받고 싶은데 며칠 걸려요?"]),
    ("서울에 살고 있는데 몇 시에 열어요?", ["서울에 살고 있는데 몇 시에 열어요?"]),
])
def test_korean_questions_joined_by_go(question, parts):
    assert asked_parts(question) == parts
