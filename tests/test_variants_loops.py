"""Every loop of every judging variant stays within its bound, whatever the judgements (hypothesis), and each
variant's trace is consistent with its compiled graph."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from rag.config import Settings
from rag.trace import Run
from rag.variants import registry, run_question
from rag.variants.tool_agent import recursion_limit as tool_agent_limit
from tests.support.critics import ScriptedCritics
from tests.support.scripted import ListTool, ToolsKB, make_doc

LABELS = ("correct", "ambiguous", "incorrect")
JUDGING = ("tool_agent", "self_rag", "crag", "adaptive")
pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")


def kb(web_up: bool) -> ToolsKB:
    def vector(query: str):
        return [make_doc(f"v{i}:{abs(hash(query)) % 101}", f"Fact {i} about {query}. Unrelated remark {i}.")
                for i in range(3)]

    web = ListTool("web", [make_doc("https://example.org/a", "A web page.", tool="web", source="example.org")],
                   available=(True, "ok") if web_up else (False, "TAVILY_API_KEY is not set"))
    return ToolsKB({"vector": ListTool("vector", vector), "web": web})


def check_consistent(run: Run) -> None:
    assert run.error is None, run.error
    assert run.answer.strip() and run.stop_reason
    assert run.path == [s.node for s in run.steps]
    assert [s.index for s in run.steps] == list(range(len(run.steps)))
    edges = set(registry.graph_edges(run.variant))
    taken = [tuple(e) for e in run.edges if "recursion_limit" not in e]
    assert set(taken) <= edges, set(taken) - edges
    assert Run.from_dict(run.to_dict()).to_dict() == run.to_dict()


def count(run: Run, *nodes: str) -> int:
    return sum(1 for n in run.path if n in nodes)


@hsettings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(variant=st.sampled_from(JUDGING), max_attempts=st.integers(1, 4), web_up=st.booleans(),
       grades=st.lists(st.sampled_from(LABELS), min_size=1, max_size=12),
       tool=st.lists(st.booleans(), min_size=1, max_size=8), supported=st.lists(st.booleans(), min_size=1, max_size=8),
       useful=st.lists(st.booleans(), min_size=1, max_size=8),
       complexity=st.sampled_from(("simple", "moderate", "complex", "nonsense")))
def test_every_loop_stays_within_its_bound(data_dir, variant, max_attempts, web_up, grades, tool, supported, useful,
                                          complexity):
    engine = ScriptedCritics(grade=list(grades), tool=list(tool), supported=list(supported), useful=list(useful),
                             complexity=complexity)
    settings = Settings.from_env().with_(max_attempts=max_attempts)
    run = run_question("Who founded Alpha?", kb(web_up), engine, settings, variant=variant)
    check_consistent(run)
    m = max_attempts
    if variant == "tool_agent":
        assert count(run, "retrieve") <= m  # recursion_limit = 4m supersteps is the only bound (seed 001)
        assert len(run.steps) <= tool_agent_limit(m) + 1  # at most `limit` nodes, plus the recorded limit step
        hit = run.stop_reason == "recursion_limit"
        assert hit == (run.path[-1] == "recursion_limit")
        if hit:
            assert run.partial and run.steps[-1].status == "failed" and "recursion_limit" in run.steps[-1].reason
    elif variant == "self_rag":
        assert count(run, "retrieve") <= m
        assert count(run, "generate") <= m * max(1, count(run, "retrieve"))
        assert count(run, "check_hallucination") == count(run, "generate")
    elif variant == "crag":
        assert count(run, "retrieve") <= m and count(run, "web_search") <= 1
        assert run.path[-1] in ("generate", "not_found")
        if run.path[-1] == "not_found":
            assert run.stop_reason == "attempts_guard" and count(run, "retrieve") == m
    else:
        assert count(run, "retrieve", "retrieve_once") <= m
        first = run.steps[0]
        assert first.node == "classify_complexity"
        expected = {"simple": "direct_generate", "moderate": "retrieve_once"}.get(first.decision, "retrieve")
        assert run.path[1] == expected
    assert len(run.attempts) <= m + 1  # + one failed web attempt in crag / adaptive


@pytest.mark.parametrize("variant", JUDGING)
def test_a_crashing_judge_ends_the_run_with_a_message(data_dir, variant):
    engine = ScriptedCritics(grade=RuntimeError("grader down"), tool=True, complexity="complex")
    run = run_question("Who founded Alpha?", kb(False), engine, Settings.from_env(), variant=variant)
    assert run.error and "grader down" in run.error and run.stop_reason == "error"
    assert run.steps[-1].status == "failed"


def test_tool_agent_uses_its_whole_budget_before_the_limit(data_dir):
    """max_attempts tool calls ending in generate fit under recursion_limit; one more rewrite does not."""
    engine = ScriptedCritics(grade=["incorrect", "correct"], tool=True)
    run = run_question("Who founded Alpha?", kb(False), engine, Settings.from_env().with_(max_attempts=2),
                       variant="tool_agent")
    assert run.path == ["agent", "retrieve", "grade_documents", "rewrite", "agent", "retrieve", "grade_documents",
                        "generate"]
    assert run.stop_reason == "relevant" and not run.partial


def test_tool_agent_records_hitting_recursion_limit(data_dir):
    engine = ScriptedCritics(grade="incorrect", tool=True)
    run = run_question("Who founded Alpha?", kb(False), engine, Settings.from_env().with_(max_attempts=2),
                       variant="tool_agent")
    # the limit stops the agent's third decision before a third tool call
    assert run.path == ["agent", "retrieve", "grade_documents", "rewrite"] * 2 + ["agent", "recursion_limit"]
    assert run.stop_reason == "recursion_limit" and run.partial
    from rag.failures import label_run

    f5 = [f for f in label_run(run) if f.code == "F5"]
    assert f5 and f5[0].level == "observed" and f5[0].steps == [len(run.steps)]


def test_f1_takes_the_grade_of_the_attempt_the_generator_used(data_dir):
    """The same chunk graded incorrect in attempt 1 and correct in attempt 2 reached the generator as correct."""
    from rag.failures import label_run

    fixed = ToolsKB({"vector": ListTool("vector", [make_doc("same:0", "Alpha was founded by Kim.")]),
                     "web": ListTool("web", [], available=(False, "no key"))})
    engine = ScriptedCritics(grade=["incorrect", "correct"])
    run = run_question("Who founded Alpha?", fixed, engine, Settings.from_env(), variant="crag")
    assert [s.node for s in run.steps].count("retrieve") == 2 and run.stop_reason == "refined"
    assert "F1" not in {f.code for f in label_run(run)}
