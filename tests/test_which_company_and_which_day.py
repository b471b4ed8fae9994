""""Which company" and "哪天" (twenty-fifth session, issue 8; documents written for this test).

- "哪家公司 / which company / 어느 회사" asks for a company's name. Grading already checked that a document names one
  (``answertype.asked_for_grading``); answer selection did not: the sentence that names the system ("LabLink copies
  results …") was quoted and the next one, "It was developed by Nurivet Solutions, a veterinary software company",
  was not. A quoted sentence must now name a company (a legal-form or trade word: ``names_organisation`` marked),
  else the best-ranked one that does is quoted, within the same window as any other asked value.
- Chinese "哪天" without a week before it asks for a date ("哪天上线的", "是从哪天开始算的"), not a weekday (nor a time
  of day, which "when" allows); "每周哪天" still asks for a weekday, "到哪天" for an end.

The semantic scores are the input of the selection tests (``sentence_evidence``): what is tested is the choice made
from them, which a real embedder would make hard to pin down.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.answertype import asked_type
from rag.engines.offline.coverage import question_terms
from rag.types import Retrieved
from tests.support.meaning import fix_meaning

SYSTEMS = ("# Clinic software\n\n## LabLink\n\n"
           "LabLink copies results from the blood analysers into PawChart so that vets do not retype them.\n"
           "It was developed by Brightvet Solutions, a veterinary software company based in Daejeon.\n"
           "Brightvet supports it under a yearly contract.\n")
COPIES = "LabLink copies results from the blood analysers into PawChart so that vets do not retype them."
MADE_BY = "It was developed by Brightvet Solutions, a veterinary software company based in Daejeon."
WHICH_COMPANY = "把血液分析仪结果导入病历的那个 LabLink 是哪家公司做的？"


@pytest.fixture
def engine(data_dir):
    from tests.support.kb import make_settings

    return OfflineEngine(make_settings(data_dir), clock=lambda: date(2026, 12, 1))


def _doc(text: str) -> Retrieved:
    return Retrieved(id="d0:0", text=text, source="systems.md", score=0.9, tool="vector", doc_id="d0", chunk_index=0)


def _select(engine, monkeypatch, question: str, scores: dict[str, float]) -> list[str]:
    """The quoted sentences for ``question`` over SYSTEMS, each sentence's 0..1 semantic score fixed by its text."""
    fix_meaning(engine, monkeypatch, scores)
    terms, _ = question_terms(question)
    return [c.text for c in engine._select(question, terms, [_doc(SYSTEMS)])]


def test_which_company_quotes_the_sentence_that_names_one(engine, monkeypatch):
    quoted = _select(engine, monkeypatch, WHICH_COMPANY, {COPIES: 0.9, MADE_BY: 0.7, "Brightvet supports it under a "
                                                          "yearly contract.": 0.5})
    assert MADE_BY in quoted, quoted
    assert quoted[0] == MADE_BY, quoted  # close to the best: it leads, as any asked value does


def test_a_company_sentence_far_below_the_best_is_not_pulled_in(engine, monkeypatch):
    # the sentence naming a company matches the question badly (under TYPE_WINDOW_SHARE of the best, and under
    # TYPE_SAME_DOC_SHARE): nothing is added, as for any asked value
    quoted = _select(engine, monkeypatch, WHICH_COMPANY, {COPIES: 0.9, MADE_BY: 0.0})
    assert MADE_BY not in quoted, quoted


def test_a_question_that_asks_no_company_is_unchanged(engine, monkeypatch):
    quoted = _select(engine, monkeypatch, "LabLink 是做什么用的？", {COPIES: 0.9, MADE_BY: 0.7})
    assert quoted[0] == COPIES, quoted


@pytest.mark.parametrize("question, label", [
    ("《潮汐契约》国际服是哪天上线的？", "date"),
    ("那份协议是从哪天开始算的？", "date"),
    ("哪一天开始报名？", "date"),
    ("每周哪天下单？", "weekday"),
    ("一个星期哪天休息？", "weekday"),
    ("哪几天营业？", "weekday"),
    ("星期几关门？", "weekday"),
    ("到哪天为止？", "end date or time"),
])
def test_which_day_in_chinese(question, label):
    asked = asked_type(question)
    assert asked.label == label
    if label == "date":
        assert "time" not in asked.kinds  # a day is asked, not the time of day "when" also allows
