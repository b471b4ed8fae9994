"""A comparison answered from a table (twenty-fifth session, issue 8; a document written for this test).

"How many taps does the Mangwon taproom have compared with the original one in Danyang?": Mangwon's answer is a row of
the sites table ("| 서울 망원점 탭룸 | … | 탭 24개 |"); for Danyang a sentence of the company's history that also states
a count ("그해 맥주는 거의 전부 단양 읍내 식당 여섯 곳에 케그로 나갔다.", "6 shops") ranked above Danyang's own row. When the first
compared name's sentence is a table row, the other names' rows of that table come first: they state the same column.

The semantic scores are the input (``sentence_evidence``); what is tested is the choice made from them.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.coverage import question_terms
from rag.types import Retrieved
from tests.support.meaning import fix_meaning

OVERVIEW = ("# Mulbit Brewing\n\n"
            "In 2014 the brewery started in Danyang; that year its kegs went to 6 shops in Danyang.\n\n"
            "## Sites\n\n"
            "| Site | Where | Notes |\n|---|---|---|\n"
            "| Danyang taproom | Danyang town | 16 taps, 70 seats |\n"
            "| Mangwon taproom | Seoul, Mangwon | 24 taps, 96 seats |\n")
HISTORY = "In 2014 the brewery started in Danyang; that year its kegs went to 6 shops in Danyang."
DANYANG_ROW = "| Danyang taproom | Danyang town | 16 taps, 70 seats |"
MANGWON_ROW = "| Mangwon taproom | Seoul, Mangwon | 24 taps, 96 seats |"
QUESTION = "How many taps does the Mangwon taproom have compared with the original one in Danyang?"


@pytest.fixture
def engine(data_dir):
    from tests.support.kb import make_settings

    return OfflineEngine(make_settings(data_dir), clock=lambda: date(2026, 12, 1))


def _quoted(engine, monkeypatch, scores: dict[str, float]) -> list[str]:
    fix_meaning(engine, monkeypatch, scores, default=0.1)
    terms, _ = question_terms(QUESTION)
    doc = Retrieved(id="o:0", text=OVERVIEW, source="overview.md", score=0.9, tool="vector", doc_id="o", chunk_index=0)
    return [c.text for c in engine._select(QUESTION, terms, [doc])]


def test_the_other_side_is_quoted_from_the_same_table(engine, monkeypatch):
    # the history sentence matches Danyang better by meaning than Danyang's row does
    quoted = _quoted(engine, monkeypatch, {MANGWON_ROW: 0.8, HISTORY: 0.7, DANYANG_ROW: 0.3})
    assert quoted[0] == MANGWON_ROW, quoted
    assert DANYANG_ROW in quoted and HISTORY not in quoted, quoted
