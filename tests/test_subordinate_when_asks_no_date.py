"""An English "when" that opens a clause of time asks no date (thirtieth session, issue 8).

"What value of k does Atlas use when it merges its search results with RRF?" asks for a value; its "when" says at what
moment Atlas uses it. Read as a date question, every document that states no date was held at ambiguous ("asks for a
date or time and none of its best-matching sentences states one") and a Korean sentence that dates the invention of
RRF (2009) was quoted as the conclusion. A "when" after another question word of its sentence, not followed by a verb
that asks ("when did", "when is" …), is now a clause of time; "when" that starts a question or a later part, and
"when" in an indirect question ("I need to know when the office opens"), still asks a date.
"""
from __future__ import annotations

import pytest

from rag.engines.offline.answertype import asked_type


@pytest.mark.parametrize("question", [
    "What value of k does Atlas use when it merges its search results with RRF?",
    "What happened when the scanners failed?",
    "Which team answers the phone when the office is closed?",
])
def test_a_when_clause_after_another_question_word_asks_no_date(question):
    assert asked_type(question).label != "date or time"


@pytest.mark.parametrize("question", [
    "When did the office open?",
    "Who was on call, and when did they notice?",
    "I need to know when the office opens.",
    "Which team built it, and when was it built?",
])
def test_a_when_that_asks_still_asks_a_date(question):
    assert asked_type(question).label == "date or time"


def test_how_many_before_a_when_clause_still_counts():
    assert asked_type("How many parcels were delayed when the scanners failed?").label.startswith("quantity")
