"""A part of a question whose best sentence is a table's header row is answered with the rows under it (thirty-sixth
session, issue 8).

The whole question's quoted header already brought its rows (``EvidenceSelector._with_neighbours``); a header chosen
for one part of a question that asks two things ("What was the root cause of the closure, and what is the fee for
each age group now?") was quoted alone, so the answer showed the column names and none of the values. Structure, not a word list:
a header row states no value, its rows do.

Documents written for this test (a made-up public pool's notices); real knowledge base, real embedder."""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.variants import run_question

TEXTS = {
    "pool_notice.md": ("# Eastside Pool: closure and new fees\n\n"
                       "## Root cause\n\n"
                       "The pool was closed from 3 to 9 November because the chlorine pump failed. "
                       "A spare pump was fitted on 8 November and the water was tested the next morning.\n\n"
                       "## Swim fees from December\n\n"
                       "| Age group | Swim fee |\n|---|---|\n"
                       "| Children under 12 | 2 euros |\n| Adults | 5 euros |\n| Over 65 | 3 euros |\n"),
    "lessons.md": ("# Swimming lessons\n\nLessons for beginners run on Saturday mornings. "
                   "Sign up at the front desk two weeks ahead.\n"),
}
QUESTION = "What was the root cause of the Eastside pool closure, and what is the swim fee for each age group now?"


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("part-table-rows"), TEXTS)
    yield kb
    kb.close()


def test_a_part_answered_by_a_table_header_quotes_the_rows_under_it(kb):
    engine = OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1))
    run = run_question(QUESTION, kb, engine, kb.settings)
    assert run.error is None, run.error
    assert "chlorine pump failed" in run.answer, run.answer
    assert "| Age group | Swim fee |" in run.answer, run.answer
    assert all(fee in run.answer for fee in ("2 euros", "5 euros", "3 euros")), run.answer
