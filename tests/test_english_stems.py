"""Issue 8: an English question meets an English document whose words differ only by inflection ("autoclaved" ↔
"autoclave", "instruments" ↔ "instrument") through the Snowball stemmer. Documents are written for this test."""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.coverage import coverage_of
from rag.textutil import english_stem
from rag.variants import run_question

TEXTS = {
    "sterilisation.md": ("# Sterilisation\n\n"
                         "Every surgical instrument goes through the autoclave at 121 °C for 20 minutes.\n"
                         "The steam cycle is logged on the tablet beside the machine.\n"),
    "front_desk.md": ("# Front desk\n\nThe desk opens at 8 am and closes at 7 pm.\n"
                      "Visitors sign in with their name and phone number.\n"),
    "parking.md": ("# Parking\n\nThe car park has 30 spaces.\nStaff park on the lower level.\n"),
}


def test_inflected_words_share_a_stem():
    assert english_stem("autoclaved") == english_stem("autoclave")
    assert english_stem("instruments") == english_stem("instrument")
    cov = coverage_of(["autoclaved", "instruments", "temperature"], TEXTS["sterilisation.md"])
    assert cov.credit["autoclaved"] == 1.0 and cov.how["autoclaved"].startswith("via stem")
    assert cov.credit["instruments"] == 1.0
    assert cov.credit["temperature"] == 0.0  # a stem is no synonym: 121 °C is not the word "temperature"


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("english-stems"), TEXTS)
    yield kb
    kb.close()


def test_question_with_other_inflections_is_answered_from_the_document(kb):
    engine = OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1))
    run = run_question("How long are surgical instruments autoclaved?", kb, engine, kb.settings)
    assert run.error is None, run.error
    assert not run.partial and not run.abstained, run.answer
    assert "20 minutes" in run.answer
    graded = [d for s in run.steps if s.node == "grade_documents" for d in s.documents
              if d.source == "sterilisation.md"]
    assert graded and graded[0].grade == "correct" and "via stem" in (graded[0].grade_reason or "")
