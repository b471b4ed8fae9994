"""Issue 8: small-to-big context. The agent's answer reads the chunks next to each usable chunk in its document
(``VectorTool.neighbours``, ``Settings.context_neighbours``): a fact stated just past a chunk's edge — here the fare
right under a "## Fares" heading that ends the chunk the grader confirmed — reaches the answer, and the trace says
which chunk each neighbour belongs to. Neighbours are never graded: they ride along as "ambiguous" with their
chunk's score and a reason that says so.

Documents written for this test: a made-up night ferry, cut into small chunks (chunk size 200, no overlap).
"""
from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pytest

from rag.config import Settings
from rag.engines.offline import OfflineEngine
from rag.tools.vector import VectorTool
from rag.types import Grade, Retrieved, ToolUnavailable
from rag.variants.agentic import AgentContext, generate, partial_answer
from rag.variants.base import Hop, with_context_neighbours

FERRY = ("# Night ferry\n\n"
         "The night ferry between Pier A and Pier B was started in 2024 for late shift workers at the port. "
         "It is run by the Bluewave company under a contract with the city.\n\n"
         "## Fares\n\n"
         "A single trip on the night ferry costs 3,500 won. Children under seven travel free.\n\n"
         "## Timetable\n\n"
         "The first night ferry leaves Pier A at 22:10. The last one leaves Pier B at 03:40.\n\n"
         "## Lost property\n\n"
         "Items left on board are kept at the Pier A office for two weeks. "
         "Umbrellas and bottles are thrown away after three days.\n")
OTHER = ("# Harbour museum\n\n"
         "The harbour museum opens at 10:00 and closes at 18:00 every day except Monday. "
         "Entry is free for residents of the city.\n")
QUESTION = "How much does a single trip on the night ferry cost?"


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("neighbours"), {"night_ferry.md": FERRY, "museum.md": OTHER},
                  chunk_size=200, chunk_overlap=0)
    yield kb
    kb.close()


@pytest.fixture(scope="module")
def tool(kb):
    return VectorTool(kb, kb.settings)


def _chunks(kb, source):
    return sorted((c for c in kb.vectors.all_chunks() if c.source == source), key=lambda c: c.index)


def _as_retrieved(chunk) -> Retrieved:
    return Retrieved(id=chunk.chunk_id, text=chunk.text, source=chunk.source, score=0.5, tool="vector",
                     doc_id=chunk.doc_id, chunk_index=chunk.index)


def test_premise_the_fare_is_in_the_chunk_after_the_one_that_names_the_fares(kb):
    chunks = _chunks(kb, "night_ferry.md")
    assert len(chunks) >= 3, [c.text for c in chunks]
    assert "## Fares" in chunks[0].text and "3,500" not in chunks[0].text
    assert "3,500 won" in chunks[1].text


def test_neighbours_are_the_chunks_either_side_nearest_first(kb, tool):
    chunks = _chunks(kb, "night_ferry.md")
    middle = _as_retrieved(chunks[1])
    got = tool.neighbours([middle], 1)
    assert [d.id for d in got] == [chunks[0].chunk_id, chunks[2].chunk_id]
    assert all(d.metadata["neighbour_of"] == middle.id and d.score == 0.0 and d.tool == "vector" for d in got)
    assert [d.text for d in got] == [chunks[0].text, chunks[2].text]
    # a chunk already among the documents is not added again; the first chunk has no chunk before it
    first = _as_retrieved(chunks[0])
    assert [d.id for d in tool.neighbours([first, middle], 1)] == [chunks[2].chunk_id]
    assert tool.neighbours([middle], 0) == []
    if len(chunks) >= 4:
        assert {d.id for d in tool.neighbours([first], 3)} == {c.chunk_id for c in chunks[1:4]}
    # graph facts and web pages have no neighbours
    fact = Retrieved(id="t1", text="Bluewave -runs-> night ferry", source="graph", score=1.0, tool="graph")
    assert tool.neighbours([fact], 1) == []


def test_a_deleted_document_gives_no_neighbours(tmp_path):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path / "kb", {"night_ferry.md": FERRY}, chunk_size=200, chunk_overlap=0)
    try:
        tool = VectorTool(kb, kb.settings)
        chunks = _chunks(kb, "night_ferry.md")
        middle = _as_retrieved(chunks[1])
        assert len(tool.neighbours([middle], 1)) == 2
        assert kb.delete(chunks[0].doc_id)
        assert tool.neighbours([middle], 1) == []
    finally:
        kb.close()


def test_with_context_neighbours_passes_neighbours_on_as_ungraded_context(kb, tool):
    chunks = _chunks(kb, "night_ferry.md")
    first = _as_retrieved(chunks[0])
    grade = Grade("correct", 0.72, "score 0.72 ≥ 0.6")
    docs, grades, added = with_context_neighbours([first], [grade], {"vector": tool}, 1, attempt=2)
    assert [d.id for d in docs] == [first.id, chunks[1].chunk_id]
    assert added.of == {chunks[1].chunk_id: first.id}
    assert added.inputs() == {"context_neighbours": {chunks[1].chunk_id: first.id}}
    assert grades[1].label == "ambiguous" and grades[1].score == 0.72
    assert "not graded" in grades[1].reason and "night_ferry.md #0" in grades[1].reason
    # the trace records it ungraded, in the attempt that answered
    [record] = added.records
    assert record.id == chunks[1].chunk_id and record.grade is None and record.attempt == 2
    assert record.metadata["neighbour_of"] == first.id and "not graded" in record.grade_reason
    # off, nothing usable: nothing added, nothing said
    assert with_context_neighbours([first], [grade], {"vector": tool}, 0)[:2] == ([first], [grade])
    incorrect = Grade("incorrect", 0.1, "none of the asked-about words")
    assert with_context_neighbours([first], [incorrect], {"vector": tool}, 1)[:2] == ([first], [incorrect])
    # no vector tool, or one that fails: the documents as they are, and the step says why
    docs, grades, added = with_context_neighbours([first], [grade], {}, 1)
    assert (docs, grades, added.of) == ([first], [grade], {}) and "no vector tool" in added.note

    class Broken:
        def neighbours(self, docs, width, exclude=()):
            raise ToolUnavailable("vector store failed: down")

    docs, grades, added = with_context_neighbours([first], [grade], {"vector": Broken()}, 1)
    assert docs == [first] and added.of == {}
    assert "vector store failed: down" in added.inputs()["context_neighbours_note"]


def test_a_chunk_graded_in_any_attempt_never_comes_back_as_an_ungraded_neighbour(kb, tool):
    chunks = _chunks(kb, "night_ferry.md")
    middle = _as_retrieved(chunks[1])
    grade = Grade("correct", 0.7, "ok")
    graded_incorrect = {chunks[0].chunk_id}  # graded incorrect in this or an earlier attempt
    docs, _, added = with_context_neighbours([middle], [grade], {"vector": tool}, 1, graded=graded_incorrect)
    assert added.of == {chunks[2].chunk_id: middle.id}
    assert chunks[0].chunk_id not in {d.id for d in docs}


def test_a_failing_store_is_an_unavailable_tool_and_graph_facts_read_nothing(kb):
    class DownKB:
        def revision(self):
            raise ConnectionError("chroma server unreachable")

    tool = VectorTool(DownKB(), kb.settings)
    fact = Retrieved(id="t1", text="Bluewave -runs-> night ferry", source="graph", score=1.0, tool="graph")
    assert tool.neighbours([fact], 1) == []  # no vector chunk: the store is not even asked
    chunk = _as_retrieved(_chunks(kb, "night_ferry.md")[1])
    with pytest.raises(ToolUnavailable, match="vector store failed: ConnectionError"):
        tool.neighbours([chunk], 1)


def _state(kb, hop_docs, grades):
    hop = Hop(number=1, strategy="vector", query=QUESTION, docs=hop_docs, grades=grades, quality=0.8)
    return {"question": QUESTION, "hops": [hop], "attempt": 1, "steps": [], "stop_reason": "budget_exhausted"}


def _runtime(kb, width, in_document=0):
    # positional neighbours alone here; the chunks found in the same document by meaning: test_context_in_document.py
    settings: Settings = kb.settings.with_(context_neighbours=width, context_in_document=in_document)
    engine = OfflineEngine(settings, clock=lambda: date(2026, 12, 1))
    return SimpleNamespace(context=AgentContext(engine=engine, tools={"vector": VectorTool(kb, settings)},
                                                settings=settings))


@pytest.mark.parametrize("node", [generate, partial_answer])
def test_the_answer_reads_the_fare_in_the_next_chunk_and_the_trace_says_where_it_came_from(kb, node):
    chunks = _chunks(kb, "night_ferry.md")
    first = _as_retrieved(chunks[0])
    state = _state(kb, [first], [Grade("correct", 0.72, "score 0.72 ≥ 0.6")])

    without = node(state, _runtime(kb, 0))
    assert "3,500" not in without["answer"].text
    assert without["steps"][0].inputs["context_neighbours"] == {} and not without["steps"][0].documents

    out = node(state, _runtime(kb, 1))
    answer, step = out["answer"], out["steps"][0]
    assert "3,500 won" in answer.text, answer.text
    assert step.inputs["context_neighbours"] == {chunks[1].chunk_id: first.id}
    assert chunks[1].chunk_id in step.inputs["doc_ids"]
    assert chunks[1].chunk_id in {c.id for c in answer.citations}
    assert [(d.id, d.grade) for d in step.documents] == [(chunks[1].chunk_id, None)]
    if node is generate:  # the reason counts the neighbour apart; the answer quotes only it, and says so
        counted = "(1 correct, 0 ambiguous in context, 1 neighbouring chunk(s) read as context, not graded)"
        assert counted in answer.reason
        assert [c.id for c in answer.citations] == [chunks[1].chunk_id]
        assert "Every quoted sentence comes from a chunk next to a graded one" in answer.text
    assert "comes from a chunk next to a graded one" not in without["answer"].text


def test_neighbours_in_a_run_are_not_retrieved_documents_and_raise_no_failure_label(kb):
    from rag.eval.metrics import used_documents
    from rag.failures import label_run
    from rag.trace import DocRecord, Run, Step

    chunks = _chunks(kb, "night_ferry.md")
    first = _as_retrieved(chunks[0])
    graded = DocRecord.from_retrieved(first, 1)
    graded.grade, graded.grade_score, graded.grade_reason = "correct", 0.72, "ok"
    out = generate(_state(kb, [first], [Grade("correct", 0.72, "ok")]), _runtime(kb, 1))
    step = out["steps"][0]
    grade_step = Step(index=0, node="grade_documents", started_at="2026-12-04T00:00:00+00:00", duration_ms=1.0,
                      attempt=1, documents=[graded])
    step.index = 1
    run = Run(question=QUESTION, variant="agentic", settings={}, steps=[grade_step, step], answer=out["answer"].text,
              path=["grade_documents", "generate"])
    assert {d.id for d in used_documents(run)} == {first.id, chunks[1].chunk_id}
    assert not [f for f in label_run(run) if f.code in ("F1", "F2", "F7")]
    # "answer in the retrieved documents" measures the search: the fare is only in the neighbour
    from rag.eval.metrics import score_run
    from rag.eval.questions import Question

    row = score_run(Question(id="q", question=QUESTION, kind="covered", expected=[["3,500 won"]]), run)
    assert row["hit"] is True and row["facts_in_context"] is False


def test_the_width_is_a_setting(monkeypatch, tmp_path):
    assert Settings.from_env(tmp_path).context_neighbours == 1
    monkeypatch.setenv("RAG_CONTEXT_NEIGHBOURS", "0")
    assert Settings.from_env(tmp_path).context_neighbours == 0
    monkeypatch.setenv("RAG_CONTEXT_NEIGHBOURS", "two")
    with pytest.raises(ValueError, match="RAG_CONTEXT_NEIGHBOURS must be a whole number"):
        Settings.from_env(tmp_path)
    with pytest.raises(ValueError, match="context_neighbours must be 0 or more"):
        Settings(data_dir=tmp_path, context_neighbours=-1)
