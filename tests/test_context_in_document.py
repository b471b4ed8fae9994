"""Issue 8: small-to-big by meaning. A long document answers one part of a question in its first chunk and the other
in a chunk far below; the search ranks chunks across the whole knowledge base, so the second may sit below the top k
while its document has already been judged relevant. The answer also reads, in each document of a usable chunk, the
chunk whose sentence matches the question, and each part it asks, best by meaning (``VectorTool.neighbours`` with a
query, ``Settings.context_in_document``); the trace says what each such chunk matched, and it is never graded.

Documents written for this test: a made-up harbour shuttle handbook cut into small chunks (chunk size 200, no
overlap), the timetable at the top and the passes at the bottom, and an unrelated museum note.
"""
from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pytest

from rag.config import Settings
from rag.engines.offline import OfflineEngine
from rag.tools.vector import VectorTool
from rag.types import MATCHED_FOR, NEIGHBOUR_OF, Grade, Retrieved
from rag.variants.agentic import AgentContext, generate, partial_answer
from rag.variants.base import Hop, with_context_neighbours
from tests.test_context_neighbours import _as_retrieved, _chunks

SHUTTLE = ("# Harbour shuttle handbook\n\n"
           "## Timetable\n\nThe first harbour shuttle leaves the East Gate at 05:50 on weekdays. "
           "On weekends it starts at 07:00.\n\n"
           "## Drivers\n\nAll drivers hold a bus licence and take a safety course every spring. "
           "New drivers ride along for two weeks.\n\n"
           "## Vehicles\n\nThe fleet has nine electric minibuses. "
           "They are charged overnight at the depot behind the fish market.\n\n"
           "## Complaints\n\nComplaints go to the port office by e-mail. The office answers within five working days.\n\n"
           "## Lost property\n\nItems left on a shuttle are kept at the depot for one month, then given to charity.\n\n"
           "## Passes\n\nA monthly shuttle pass costs 42,000 won and is sold at the port office. "
           "Single tickets are sold on board.\n")
MUSEUM = "# Harbour museum\n\nThe harbour museum opens at 10:00 and closes at 18:00 every day except Monday.\n"
QUESTION = "What time does the first shuttle leave on weekdays, and how much is a monthly pass?"
PART = "how much is a monthly pass"


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("in-document"), {"shuttle.md": SHUTTLE, "museum.md": MUSEUM},
                  chunk_size=200, chunk_overlap=0)
    yield kb
    kb.close()


@pytest.fixture(scope="module")
def tool(kb):
    return VectorTool(kb, kb.settings)


def _passes(kb):
    return next(c for c in _chunks(kb, "shuttle.md") if "42,000 won" in c.text)


def test_premise_the_two_answers_are_chunks_apart(kb):
    chunks = _chunks(kb, "shuttle.md")
    assert "05:50" in chunks[0].text and "42,000" not in chunks[0].text
    assert _passes(kb).index >= 3, [c.text for c in chunks]


def test_the_chunk_that_answers_a_part_is_found_in_the_same_document(kb, tool):
    first = _as_retrieved(_chunks(kb, "shuttle.md")[0])
    passes = _passes(kb)
    got = tool.in_documents([first], QUESTION)
    assert [d.id for d in got] == [passes.chunk_id]
    [d] = got
    assert d.metadata[NEIGHBOUR_OF] == first.id and d.metadata[MATCHED_FOR] == PART and d.score == 0.0
    assert d.source == "shuttle.md" and d.tool == "vector"
    # a chunk already graded or read is not read again, and no runner-up of its document takes its place
    assert tool.in_documents([first], QUESTION, exclude={passes.chunk_id}) == []
    # beside the positional neighbours, never twice
    docs, _, added = with_context_neighbours([first], [Grade("correct", 0.7, "ok")], {"vector": tool}, 1,
                                             question=QUESTION)
    assert [d.chunk_index for d in docs] == [0, 1, passes.index]
    assert len({d.id for d in docs}) == len(docs)
    # a blank question, or no vector chunk: nothing
    assert tool.in_documents([first], "   ") == []
    fact = Retrieved(id="t1", text="Bluewave -runs-> shuttle", source="graph", score=1.0, tool="graph")
    assert tool.in_documents([fact], QUESTION) == []


def test_the_other_documents_are_not_ranked(kb, tool):
    museum = _as_retrieved(_chunks(kb, "museum.md")[0])
    # the museum note's only chunk is already among the documents: nothing else of it, nothing of the handbook
    assert tool.in_documents([museum], QUESTION) == []


def test_a_failing_embedder_keeps_the_positional_neighbours_and_says_what_was_not_read(kb):
    class DownEmbedder:
        name = kb.embedder.name

        def embed_query(self, text):
            raise ConnectionError("embedding server unreachable")

    class KB:  # the same knowledge base, whose embedder fails for a question it has not embedded yet
        def __getattr__(self, attr):
            return DownEmbedder() if attr == "embedder" else getattr(kb, attr)

    tool = VectorTool(KB(), kb.settings)
    first = _as_retrieved(_chunks(kb, "shuttle.md")[0])
    grade = Grade("correct", 0.7, "ok")
    docs, grades, added = with_context_neighbours([first], [grade], {"vector": tool}, 1, question="A new question?")
    assert [d.chunk_index for d in docs] == [0, 1]  # the chunk next to it is still read
    note = added.inputs()["context_neighbours_note"]
    assert "matching by meaning not read" in note and "embedding server unreachable" in note


def test_a_question_is_embedded_once_per_tool(kb):
    calls = []

    class CountingEmbedder:
        name = kb.embedder.name

        def embed_query(self, text):
            calls.append(text)
            return kb.embedder.embed_query(text)

    class KB:
        def __getattr__(self, attr):
            return CountingEmbedder() if attr == "embedder" else getattr(kb, attr)

    tool = VectorTool(KB(), kb.settings)
    first = _as_retrieved(_chunks(kb, "shuttle.md")[0])
    tool.run(QUESTION, 4)
    searched = list(calls)
    assert QUESTION in searched and PART in searched
    assert [d.chunk_index for d in tool.in_documents([first], QUESTION)] == [_passes(kb).index]
    assert calls == searched  # the question and its parts were not embedded again


def test_the_trace_reason_says_what_the_chunk_matched(kb, tool):
    first = _as_retrieved(_chunks(kb, "shuttle.md")[0])
    grade = Grade("correct", 0.7, "ok")
    docs, grades, added = with_context_neighbours([first], [grade], {"vector": tool}, 0, question=QUESTION)
    passes = _passes(kb)
    assert [d.id for d in docs] == [first.id, passes.chunk_id]
    assert grades[1].label == "ambiguous" and grades[1].score == 0.7
    assert f"matches the part of the question {PART!r} best by meaning" in grades[1].reason
    assert "not graded" in grades[1].reason
    assert added.of == {passes.chunk_id: first.id}
    [record] = added.records
    assert record.grade is None and record.metadata[MATCHED_FOR] == PART


def _runtime(kb, in_document):
    settings: Settings = kb.settings.with_(context_neighbours=0, context_in_document=in_document)
    engine = OfflineEngine(settings, clock=lambda: date(2026, 12, 1))
    return SimpleNamespace(context=AgentContext(engine=engine, tools={"vector": VectorTool(kb, settings)},
                                                settings=settings))


@pytest.mark.parametrize("node", [generate, partial_answer])
def test_the_answer_states_both_parts(kb, node):
    first = _as_retrieved(_chunks(kb, "shuttle.md")[0])
    hop = Hop(number=1, strategy="vector", query=QUESTION, docs=[first], grades=[Grade("correct", 0.72, "ok")],
              quality=0.8)
    state = {"question": QUESTION, "hops": [hop], "attempt": 1, "steps": [], "stop_reason": "budget_exhausted"}
    without = node(state, _runtime(kb, 0))["answer"].text
    assert "05:50" in without and "42,000" not in without
    out = node(state, _runtime(kb, 1))
    answer, step = out["answer"], out["steps"][0]
    assert "05:50" in answer.text and "42,000 won" in answer.text, answer.text
    assert step.inputs["context_neighbours"] == {_passes(kb).chunk_id: first.id}
    if node is generate:  # counted apart in the reason, by how it was found
        assert "1 chunk(s) of the same documents matching by meaning read as context, not graded" in answer.reason
    [record] = step.documents
    assert record.grade is None and record.metadata[MATCHED_FOR] == PART


def test_the_setting(monkeypatch, tmp_path):
    assert Settings.from_env(tmp_path).context_in_document == 1
    monkeypatch.setenv("RAG_CONTEXT_IN_DOCUMENT", "0")
    assert Settings.from_env(tmp_path).context_in_document == 0
    monkeypatch.setenv("RAG_CONTEXT_IN_DOCUMENT", "yes")
    with pytest.raises(ValueError, match="RAG_CONTEXT_IN_DOCUMENT must be a whole number"):
        Settings.from_env(tmp_path)
    with pytest.raises(ValueError, match="context_in_document must be 0 or 1"):
        Settings(data_dir=tmp_path, context_in_document=2)
