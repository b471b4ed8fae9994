""""How long is X", "how big is the Y": the noun whose size is asked is the asked attribute (thirtieth session, issue 8).

"… how long is Rongguang's exclusive streaming window on each title?" asks the length of a window. An English
incident report that names Rongguang, the subtitles and a date was graded correct for it, and the agent never
searched the Chinese agreement that states the window (dev set P, xl-09). "how long / big / far … is the X" now has
X's head noun as its attribute, as "what is the fee for …" has "fee"; a word of measure ("period") gives way to the
word before it, and a clause after the noun ("the induction everyone sits through") to the noun. Where the question
asks several things, the sentences that state the attribute need only the key terms of the part that asks for it
(``grading._part_terms``): "how long is the induction" is not about where to turn up on the first morning.

Documents written for this test (a distribution agreement summary in English, an onboarding note); real knowledge
base, real embedder, no mocks.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.attribute import asked_attribute
from tests.support.kb import best_grade

TEXTS = {
    "incident_subtitles.md": (
        "# Subtitle drift at the Wuhan premiere\n\n"
        "On 3 May 2026, Jinhe Films, our partner in Wuhan, reported that the Chinese subtitles of Blue Hour drifted "
        "ahead of the dialogue.\n"
        "The corrected subtitle file reached Jinhe Films on 6 May 2026, three days later.\n"),
    "onboarding.md": (
        "# Festival staff onboarding\n\n"
        "## Your first morning\n\n"
        "Festival ushers turn up at the accreditation desk in the lobby at 08:30 on their first morning.\n\n"
        "## Safety\n\n"
        "The safety induction takes three hours and is led by the duty manager.\n"
        "Evacuation routes are walked in all four venues.\n"),
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("english-measure-attribute"), TEXTS)
    yield kb
    kb.close()


@pytest.fixture(scope="module")
def engine(kb):
    return OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1))


@pytest.mark.parametrize("question, attribute", [
    ("How long is Jinhe Films' exclusive streaming window on each title?", "window"),
    ("how long is the warranty on the X2?", "warranty"),
    ("How long is the notice period?", "notice"),  # a word of measure gives way to the word before it
    ("and how long is the induction everyone sits through?", "induction"),  # the clause after the noun
    ("How big is the deposit for a group of twenty?", "deposit"),
    ("How long did the outage last?", ""),  # no "is the X": the verb is asked about
    ("What is the length of the bridge?", ""),  # a word of measure names the kind of answer
])
def test_the_noun_whose_size_is_asked_is_the_attribute(question, attribute):
    assert asked_attribute(question) == attribute


def test_a_report_naming_the_partner_without_the_window_is_not_correct(kb, engine):
    _, g = best_grade(kb, engine, "How long is Jinhe Films' exclusive streaming window on Blue Hour?",
                      "incident_subtitles.md")
    assert g.label != "correct", g.reason
    if g.label == "ambiguous":
        assert "the asked attribute 'window'" in g.reason, g.reason


def test_the_part_that_asks_for_the_attribute_decides_what_its_sentence_must_name(kb, engine):
    question = ("I've just been taken on as an usher for the festival. Where do I turn up on the first morning, "
                "and how long is the induction everyone sits through?")
    _, g = best_grade(kb, engine, question, "onboarding.md")
    # judged by the whole question's terms, the induction sentence (its own section) names none of the first part's
    assert "the sentences that state 'induction' do not name" not in g.reason, g.reason
    assert g.label == "correct", g.reason
