"""The naive baseline: vector top-k → generate, no grading; it may fail silently, and its trace shows that."""
from __future__ import annotations

import pytest

from rag.config import Settings
from rag.trace import Run
from rag.types import ToolUnavailable
from rag.variants import run_question
from rag.variants.naive import GRAPH_EDGES
from tests.support.scripted import ListTool, ScriptedEngine, ToolsKB, make_doc

TEXTS = {
    "hr_leave.md": "# Annual leave\nEmployees get 15 days of annual leave after one year of service. "
                   "Leave requests go to the People Team.",
    "pay.txt": "Salary contracts are renewed every March. Since 2023 salary contracts are signed electronically.",
}


@pytest.fixture(scope="module")
def real_kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("naive-kb"), TEXTS)
    yield kb
    kb.close()


@pytest.fixture
def settings(data_dir) -> Settings:
    return Settings.from_env(data_dir_override=data_dir)


def check_shape(run: Run) -> None:
    assert run.variant == "naive" and run.route == "vector"
    assert run.path == ["retrieve_vector", "generate"]
    assert [tuple(e) for e in run.edges] == list(GRAPH_EDGES)
    assert run.attempts == [] and run.quality_scores == []
    assert Run.from_dict(run.to_dict()).to_dict() == run.to_dict()


def test_naive_retrieves_and_generates_without_grading(settings):
    docs = [make_doc(f"d:{i}", f"text {i}") for i in range(6)]
    kb = ToolsKB({"vector": ListTool("vector", docs)})
    engine = ScriptedEngine()
    seen = []
    run = run_question("What is in the text?", kb, engine, settings.with_(top_k=3), variant="naive",
                       on_step=seen.append)
    check_shape(run)
    assert [name for name, _ in engine.calls] == ["generate"]  # no classify, grade, evaluate
    call = engine.calls[0][1]
    assert call["mode"] == "naive" and call["grades"] is None
    assert [d.id for d in call["docs"]] == ["d:0", "d:1", "d:2"]  # top-k
    assert [s.node for s in seen] == run.path
    assert all(d.grade is None for d in run.documents) and len(run.documents) == 3
    assert run.stop_reason == "naive" and run.llm_calls == 1
    assert [c.id for c in run.citations] == ["d:0", "d:1", "d:2"]


def test_naive_with_the_vector_tool_unavailable_still_answers_and_records_it(settings):
    kb = ToolsKB({"vector": ListTool("vector", error=ToolUnavailable("Chroma server at 127.0.0.1:8000 is down"))})
    run = run_question("anything?", kb, ScriptedEngine(), settings, variant="naive")
    check_shape(run)
    assert run.steps[0].status == "failed" and "is down" in run.steps[0].reason
    assert run.error is None and run.answer


def test_naive_generator_crash_ends_the_run_with_a_message(settings):
    kb = ToolsKB({"vector": ListTool("vector", [make_doc("d:0", "x")])})
    run = run_question("anything?", kb, ScriptedEngine(generate=RuntimeError("model server 500")), settings,
                       variant="naive")
    assert run.path == ["retrieve_vector", "generate"]
    assert run.steps[-1].status == "failed" and run.stop_reason == "error"
    assert "model server 500" in run.error and run.answer.startswith("The run stopped early")


def test_naive_fails_silently_where_agentic_notices(real_kb):
    """The product's point (seed 000): on a question the documents do not answer, naive answers from a
    similar-looking chunk; the agentic run grades it incorrect and says what it did not find."""
    from rag.engines import get_engine

    engine = get_engine(real_kb.settings)
    question = "What was the minimum wage per hour in 2023?"
    naive = run_question(question, real_kb, engine, real_kb.settings, variant="naive")
    agentic = run_question(question, real_kb, engine, real_kb.settings, variant="agentic")
    check_shape(naive)
    assert naive.error is None and not naive.abstained
    assert "pay.txt" in {d.source for d in naive.documents}
    assert all(d.grade is None for d in naive.documents)
    assert agentic.abstained and agentic.partial
    assert naive.llm_calls == 0 and agentic.llm_calls == 0  # offline engine: rules, no model calls
