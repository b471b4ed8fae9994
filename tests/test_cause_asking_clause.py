"""A cause question whose asking clause names nothing but the cause (twenty-sixth session, issue 8).

"Everyone said the May ferry delay was the engine's fault. Was it, or what actually went wrong?": the statement names
the event, the asking clause only asks for a cause ('actually', 'went', 'wrong'). The grader required one of the
asking clause's words in a document, so the report's root-cause section was graded incorrect ("none of the asked-about
words") and the agent went looking elsewhere. A text that holds some of the other clauses' words and states a cause
(a cause sentence, or a section under a cause heading) now meets the asking clause, with the reason in the grade.

Documents written for this test: a ferry delay report (summary with the first explanation, root cause section), a
timetable that names the ferry and states no cause, and a bakery report that states a cause of another event. Real
knowledge base, real embedder, no mocks.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.variants import run_question
from tests.support.kb import best_grade

TEXTS = {
    "ferry_delay_2026_05.md": (
        "# Incident report: Gull Line ferry delay, 9 May 2026\n\n"
        "## Summary\n\n"
        "On 9 May 2026 the morning Gull Line ferry left Seonjae pier 95 minutes late. Passengers were first told "
        "that the engine had failed.\n\n"
        "## Root cause\n\n"
        "The engine was not the problem: it started normally at 06:10. The real cause was a ticket scanner at the "
        "gate that rejected every mobile ticket, so boarding had to be checked by hand.\n\n"
        "## Follow-up\n\n"
        "1. A spare scanner is now kept at the gate.\n"),
    "ferry_timetable.md": (
        "# Gull Line ferry timetable\n\n"
        "The Gull Line ferry leaves Seonjae pier at 06:30, 11:00 and 16:30 every day in May.\n"
        "The crossing takes 50 minutes; the engine is serviced every Monday night.\n"),
    "bakery_report.md": (
        "# Bakery oven report\n\n"
        "The oven stopped on Tuesday because its thermostat wore out after six years.\n"
        "A new thermostat was fitted the same afternoon.\n"),
}
QUESTION = "Everyone said the May ferry delay was the engine's fault. Was it, or what actually went wrong?"


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("cause-clause"), TEXTS)
    yield kb
    kb.close()


@pytest.fixture
def engine(kb):
    return OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1))


def test_the_root_cause_section_meets_an_asking_clause_that_asks_only_for_a_cause(kb, engine):
    doc, grade = best_grade(kb, engine, QUESTION, "ferry_delay_2026_05.md")
    assert grade.label != "incorrect", grade.reason
    assert "the question asks for a cause and this text states one" in grade.reason, grade.reason
    assert "none of the asked-about words" not in grade.reason


def test_a_text_that_states_no_cause_is_still_rejected(kb, engine):
    # the timetable names the ferry and its engine but says nothing about why anything happened
    _, grade = best_grade(kb, engine, QUESTION, "ferry_timetable.md")
    assert grade.label == "incorrect" and "none of the asked-about words" in grade.reason, grade.reason


def test_a_cause_of_something_the_question_does_not_name_is_still_rejected(kb, engine):
    # the bakery report states a cause but holds none of the statement's words
    _, grade = best_grade(kb, engine, QUESTION, "bakery_report.md")
    assert grade.label == "incorrect", grade.reason
    assert "asks for a cause and this text states one" not in grade.reason


def test_the_exemption_never_grades_a_text_correct(kb, engine):
    # the rule cannot tell a frame word from matter the text lacks ("harbour parking charges" are named nowhere): a
    # text it lets through is graded at most ambiguous, whatever its score
    for question in (QUESTION, "The ferry was late in May. Why were the harbour parking charges raised that summer?"):
        _, grade = best_grade(kb, engine, question, "ferry_delay_2026_05.md")
        assert "asks for a cause and this text states one" in grade.reason, grade.reason
        assert grade.label != "correct", grade.reason


def test_the_agent_quotes_the_real_cause(kb, engine):
    run = run_question(QUESTION, kb, engine, kb.settings)
    assert run.error is None, run.error
    assert "ticket scanner" in run.answer, run.answer


@pytest.mark.parametrize("question, cause", [
    ("They told us the cans went stale in the container. Was that really it, or what actually let the lot through?",
     True),
    ("People blame the boiler for the cold showers. Is that really what happened, or was it something else?", True),
    ("Is it really true that the ferry leaves at 06:30?", False),  # a fact to confirm, no alternative asked
    ("Was it really that cheap?", False),
])
def test_a_premise_doubted_with_an_alternative_asks_for_the_cause(question, cause):
    from rag.engines.offline.semantics import question_intents

    assert ("cause" in question_intents(question)) is cause
