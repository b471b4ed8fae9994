"""The agentic graph: every path, the loop bound, repetition, partial answers, failures, and the trace it records.

Decisions are forced with the scripted engine (tests/support/scripted.py); the tools are tiny in-test tools here
and the real knowledge base in tests/test_agentic_kb.py.
"""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from rag.config import Settings
from rag.trace import Run
from rag.types import Answer, Retrieved, ToolUnavailable
from rag.variants import VARIANTS, run_question
from rag.variants.agentic import (
    CLASSIFY,
    DIRECT_GENERATE,
    EVALUATE_CONTEXT,
    GENERATE,
    GRADE_DOCUMENTS,
    GRAPH_EDGES,
    NODES,
    PARTIAL_ANSWER,
    RE_ROUTE,
    RETRIEVE_GRAPH,
    RETRIEVE_VECTOR,
    RETRIEVE_WEB,
    REWRITE_QUERY,
    build_graph,
    decide_next,
)
from rag.variants.base import Hop
from tests.support.scripted import ListTool, ScriptedEngine, ToolsKB, make_doc

STOP_REASONS = {"quality_met", "budget_exhausted", "repetition", "direct", "error"}
LOOP = [GRADE_DOCUMENTS, EVALUATE_CONTEXT]


def vector_docs(query: str) -> list[Retrieved]:
    return [make_doc(f"doc{i}:{abs(hash(query)) % 97}", f"chunk {i} about {query}", score=1 - i / 10)
            for i in range(3)]


def graph_docs(query: str) -> list[Retrieved]:
    return [make_doc(f"triple:{query}", f"Alpha -founded_by-> Kim ({query})", tool="graph", source="graph")]


def make_kb(web_available: bool = False, web_docs=None, **overrides) -> ToolsKB:
    tools = {
        "vector": ListTool("vector", vector_docs),
        "graph": ListTool("graph", graph_docs),
        "web": ListTool("web", web_docs or [], available=(True, "ok") if web_available
                        else (False, "TAVILY_API_KEY is not set")),
    }
    tools.update(overrides)
    return ToolsKB(tools, entities=["Alpha", "Kim"])


@pytest.fixture
def settings(data_dir) -> Settings:
    return Settings.from_env(data_dir_override=data_dir)


def ask(engine, settings, kb=None, question="Who founded Alpha?", **changes) -> Run:
    steps = []
    run = run_question(question, kb or make_kb(), engine, settings.with_(**changes), on_step=steps.append)
    assert [s.index for s in steps] == list(range(len(run.steps)))  # every step was shown, in order
    assert_consistent(run)
    return run


def assert_consistent(run: Run) -> None:
    """What every run must satisfy, whatever path it took."""
    assert run.answer.strip()
    assert run.stop_reason in STOP_REASONS
    assert run.path == [s.node for s in run.steps]
    assert [s.index for s in run.steps] == list(range(len(run.steps)))
    assert run.edges[0] == ["__start__", CLASSIFY]
    assert run.edges[-1] == [run.path[-1], "__end__"]
    assert run.edges[1:-1] == [[a, b] for a, b in zip(run.path, run.path[1:])]
    if run.error is None:
        assert all(tuple(e) in GRAPH_EDGES for e in run.edges)
        assert run.path[-1] in (GENERATE, DIRECT_GENERATE, PARTIAL_ANSWER)
    retrievals = [s for s in run.steps if s.node.startswith("retrieve_")]
    assert len(retrievals) == len(run.attempts) or run.error is not None
    assert [a.number for a in run.attempts] == list(range(1, len(run.attempts) + 1))
    assert Run.from_dict(run.to_dict()).to_dict() == run.to_dict()


# ---- structure --------------------------------------------------------------------------------------------------

def test_graph_edges_match_the_compiled_graph():
    graph = build_graph()
    drawn = {(e.source, e.target) for e in graph.get_graph().edges}
    assert drawn == set(GRAPH_EDGES)
    assert {n for n in graph.get_graph().nodes if not n.startswith("__")} == set(NODES)
    assert set(VARIANTS) >= {"agentic", "naive"}


# ---- paths ------------------------------------------------------------------------------------------------------

def test_direct_path_skips_retrieval(settings):
    engine = ScriptedEngine(classify="direct")
    run = ask(engine, settings, question="Translate 'retrieval' into Korean")
    assert run.route == "direct"
    assert run.path == [CLASSIFY, DIRECT_GENERATE]
    assert run.stop_reason == "direct" and run.attempts == [] and not run.abstained
    assert [name for name, _ in engine.calls] == ["classify", "generate"]
    assert engine.calls[-1][1]["mode"] == "direct"


def test_vector_then_generate_records_a_full_trace(settings):
    engine = ScriptedEngine(classify="vector", grade=["correct", "ambiguous", "incorrect"], evaluate=0.85)
    run = ask(engine, settings)
    assert run.route == "vector"
    assert run.path == [CLASSIFY, RETRIEVE_VECTOR, *LOOP, GENERATE]
    assert run.stop_reason == "quality_met" and not run.partial
    assert run.quality_scores == [0.85]
    [attempt] = run.attempts
    assert (attempt.strategy, attempt.query, attempt.threshold, attempt.n_documents, attempt.n_correct) == (
        "vector", "Who founded Alpha?", 0.6, 3, 1)
    # every document graded, grades recorded on the grading step and in run.documents
    assert engine.count("grade") == 3
    grading = run.steps[2]
    assert [d.grade for d in grading.documents] == ["correct", "ambiguous", "incorrect"]
    assert {d.id: d.grade for d in run.documents} == {d.id: d.grade for d in grading.documents}
    # the generator saw correct + ambiguous documents only, and the run holds its exact context and prompt
    generate_call = engine.calls[-1][1]
    assert generate_call["mode"] == "answer"
    assert [d.id for d in generate_call["docs"]] == [d.id for d in grading.documents[:2]]
    assert [c.id for c in run.citations] == [d.id for d in grading.documents[:2]]
    assert run.generator_context and "chunk 0" in run.generator_context
    assert run.generator_prompt[0]["content"].startswith("answer:")
    # model calls: one per classify/grade/evaluate/generate call, attached to their steps
    assert run.llm_calls == 1 + 3 + 1 + 1 == len(engine.calls)
    assert [len(s.model_calls) for s in run.steps] == [1, 0, 3, 1, 1]
    assert run.tokens["total"] == 12 * run.llm_calls
    evaluate = run.steps[3]
    assert evaluate.decision == "generate" and "0.85 ≥ threshold 0.60" in evaluate.reason
    assert run.settings["threshold"] == 0.6 and run.engine["engine"] == "scripted"
    assert run.wall_ms > 0 and all(s.duration_ms >= 0 and s.started_at for s in run.steps)


def test_low_quality_re_routes_vector_to_graph(settings):
    engine = ScriptedEngine(classify="vector", evaluate=[0.2, 0.8])
    run = ask(engine, settings)
    assert run.path == [CLASSIFY, RETRIEVE_VECTOR, *LOOP, RE_ROUTE, RETRIEVE_GRAPH, *LOOP, GENERATE]
    assert [a.strategy for a in run.attempts] == ["vector", "graph"]
    assert run.quality_scores == [0.2, 0.8]
    assert run.steps[4].decision == "graph" and "untried" in run.steps[4].reason
    assert run.stop_reason == "quality_met"
    # generate uses the attempt that met the threshold
    assert [d.tool for d in engine.calls[-1][1]["docs"]] == ["graph"]


def test_unavailable_web_is_a_failed_attempt_not_a_substitution(settings):
    kb = make_kb(web_available=False)
    engine = ScriptedEngine(classify="web", evaluate=0.9)
    run = ask(engine, settings, kb=kb)
    assert run.route == "web"
    assert run.path == [CLASSIFY, RETRIEVE_WEB, *LOOP, RE_ROUTE, RETRIEVE_VECTOR, *LOOP, GENERATE]
    web_step = run.steps[1]
    assert web_step.status == "failed" and "TAVILY_API_KEY is not set" in web_step.reason
    assert web_step.documents == []
    assert run.steps[2].status == "skipped"  # nothing to grade
    first = run.attempts[0]
    assert (first.strategy, first.status, first.quality) == ("web", "failed", 0.0)
    assert "unavailable" in first.note
    assert "failed" in run.steps[3].reason and run.steps[3].decision == "re_route"
    assert engine.count("evaluate") == 1  # a failed attempt is not judged by the engine
    assert kb.tools()["vector"].queries == ["Who founded Alpha?"]  # only after the visible re-route


def test_tool_raising_tool_unavailable_is_recorded_the_same_way(settings):
    kb = make_kb(graph=ListTool("graph", error=ToolUnavailable("Neo4j is not running at bolt://127.0.0.1:7687")))
    run = ask(ScriptedEngine(classify="graph", evaluate=0.9), settings, kb=kb)
    assert run.attempts[0].status == "failed" and "Neo4j is not running" in run.attempts[0].note
    assert [a.strategy for a in run.attempts] == ["graph", "vector"]
    assert run.error is None and run.stop_reason == "quality_met"


def test_rewrite_when_every_strategy_was_tried(settings):
    kb = make_kb(web_available=True, web_docs=[make_doc("https://example.com", "web page", tool="web")])
    engine = ScriptedEngine(classify="vector", evaluate=[0.1, 0.2, 0.3, 0.9],
                            rewrite=lambda question, query, docs, grades: "Alpha founder name")
    run = ask(engine, settings, kb=kb, max_attempts=4)
    assert run.path == [CLASSIFY, RETRIEVE_VECTOR, *LOOP, RE_ROUTE, RETRIEVE_GRAPH, *LOOP, RE_ROUTE, RETRIEVE_WEB,
                        *LOOP, REWRITE_QUERY, RETRIEVE_WEB, *LOOP, GENERATE]
    assert [(a.strategy, a.query) for a in run.attempts][-1] == ("web", "Alpha founder name")
    rewrite = run.steps[run.path.index(REWRITE_QUERY)]
    assert rewrite.inputs["query"] == "Who founded Alpha?" and rewrite.output["query"] == "Alpha founder name"
    assert kb.tools()["web"].queries == ["Who founded Alpha?", "Alpha founder name"]


def test_rewrite_targets_the_last_working_tool_when_the_current_one_is_unavailable(settings):
    engine = ScriptedEngine(classify="vector", evaluate=[0.1, 0.1, 0.9],
                            rewrite=lambda question, query, docs, grades: "founder of Alpha")
    run = ask(engine, settings, max_attempts=4)
    assert [a.strategy for a in run.attempts] == ["vector", "graph", "web", "graph"]
    assert run.attempts[2].status == "failed"
    assert run.attempts[3].query == "founder of Alpha"


def test_budget_exhausted_gives_a_partial_answer_from_every_hop(settings):
    engine = ScriptedEngine(classify="vector", grade=["correct", "incorrect", "incorrect", "ambiguous"],
                            evaluate=[0.3, 0.4])
    run = ask(engine, settings, max_attempts=2)
    assert run.path == [CLASSIFY, RETRIEVE_VECTOR, *LOOP, RE_ROUTE, RETRIEVE_GRAPH, *LOOP, PARTIAL_ANSWER]
    assert run.partial and run.stop_reason == "budget_exhausted"
    assert len(run.attempts) == 2
    call = engine.calls[-1][1]
    assert call["mode"] == "partial"
    # the correct doc of hop 1 and the ambiguous fact of hop 2: earlier hops are not lost
    assert [d.tool for d in call["docs"]] == ["vector", "graph"]
    assert [g.label for g in call["grades"]] == ["correct", "ambiguous"]
    assert "2 of 2 attempts used" in run.steps[-1].reason
    assert run.answer.startswith("Found in the documents (partial)")


def test_max_attempts_one_stops_after_the_first_retrieval(settings):
    run = ask(ScriptedEngine(classify="graph", evaluate=0.0), settings, max_attempts=1)
    assert run.path == [CLASSIFY, RETRIEVE_GRAPH, *LOOP, PARTIAL_ANSWER]
    assert len(run.attempts) == 1 and run.stop_reason == "budget_exhausted"


def test_repetition_same_normalized_query_on_the_same_tool(settings):
    # vector, graph, web(unavailable), then a rewrite for graph that comes back as the same query (different
    # case and punctuation): the repeat is detected and the run stops with what it found.
    engine = ScriptedEngine(classify="vector", evaluate=0.1,
                            rewrite=lambda question, query, docs, grades: "who founded ALPHA")
    run = ask(engine, settings, max_attempts=5)
    assert [a.strategy for a in run.attempts] == ["vector", "graph", "web", "graph"]
    assert run.stop_reason == "repetition" and run.partial
    assert run.attempts[-1].status == "repeated"
    assert "repeats attempt 2" in run.steps[-2].reason
    assert len(run.attempts) < 5


def test_repetition_by_retrieved_id_overlap(settings):
    same_page = [make_doc("https://example.com/a", "page a", tool="web"),
                 make_doc("https://example.com/b", "page b", tool="web")]
    kb = make_kb(web_available=True, web_docs=same_page)
    engine = ScriptedEngine(classify="vector", evaluate=0.2,
                            rewrite=lambda question, query, docs, grades: query + " history")
    run = ask(engine, settings, kb=kb, max_attempts=5)
    # the rewritten query is new, but the web tool returns the same pages: the same place dug again
    assert [a.strategy for a in run.attempts] == ["vector", "graph", "web", "web"]
    assert run.attempts[-1].query == "Who founded Alpha? history"
    assert run.stop_reason == "repetition"
    assert "id overlap 1.00" in run.steps[-2].reason


def test_abstention_is_taken_from_the_generator(settings):
    engine = ScriptedEngine(classify="vector", grade="incorrect", evaluate=0.1)
    run = ask(engine, settings, max_attempts=2)
    # nothing usable in any hop: the partial answer is built on no documents and the generator abstains
    assert engine.calls[-1][1]["docs"] == []
    assert run.abstained and run.partial and run.citations == []


def test_unknown_strategy_from_the_engine_falls_back_to_vector_visibly(settings):
    run = ask(ScriptedEngine(classify="spreadsheet"), settings)
    assert run.route == "vector"
    assert "unknown strategy 'spreadsheet'" in run.steps[0].reason


def test_quality_outside_0_1_is_clamped(settings):
    run = ask(ScriptedEngine(evaluate=[math.nan, 7.5]), settings)
    assert run.quality_scores == [0.0, 1.0]


# ---- failures inside nodes -------------------------------------------------------------------------------------

def test_an_exception_in_a_node_is_recorded_and_the_run_ends_with_a_message(settings):
    seen = []
    engine = ScriptedEngine(grade=RuntimeError("grader exploded"))
    run = run_question("Who founded Alpha?", make_kb(), engine, settings, on_step=seen.append)
    assert_consistent(run)
    assert run.path == [CLASSIFY, RETRIEVE_VECTOR, GRADE_DOCUMENTS]
    failed = run.steps[-1]
    assert failed.status == "failed" and "grader exploded" in failed.error
    assert seen[-1] is failed
    assert run.stop_reason == "error" and "grader exploded" in run.error
    assert "stopped early" in run.answer and run.abstained
    assert run.edges[-1] == [GRADE_DOCUMENTS, "__end__"]


def test_a_tool_crash_is_an_error_not_a_silent_retry(settings):
    kb = make_kb(vector=ListTool("vector", error=ValueError("collection is corrupt")))
    run = run_question("Who founded Alpha?", kb, ScriptedEngine(), settings)
    assert run.path == [CLASSIFY, RETRIEVE_VECTOR]
    assert run.steps[-1].status == "failed" and "collection is corrupt" in run.error


def test_a_failing_generator_still_ends_the_run_cleanly(settings):
    run = run_question("2+2?", make_kb(), ScriptedEngine(classify="direct", generate=KeyError("model")), settings)
    assert run.path == [CLASSIFY, DIRECT_GENERATE] and run.stop_reason == "error"
    assert run.answer.strip()


def test_on_step_is_called_live_while_the_graph_runs(settings):
    engine = ScriptedEngine(evaluate=[0.1, 0.9])
    calls_seen = []
    run_question("Who founded Alpha?", make_kb(), engine, settings,
                 on_step=lambda step: calls_seen.append((step.node, len(engine.calls))))
    # when classify's step arrived, the engine had only classified: nothing graded yet
    assert calls_seen[0] == (CLASSIFY, 1)
    assert [n for n, _ in calls_seen] == [CLASSIFY, RETRIEVE_VECTOR, *LOOP, RE_ROUTE, RETRIEVE_GRAPH, *LOOP, GENERATE]
    assert [c for _, c in calls_seen] == sorted(c for _, c in calls_seen)
    assert calls_seen[-2][1] < len(engine.calls)


# ---- the decision function --------------------------------------------------------------------------------------

def hop(number, strategy, quality, query="q", ids=(), status="ok"):
    return Hop(number=number, strategy=strategy, query=query, quality=quality, status=status,
               docs=[make_doc(i, i) for i in ids], note="unavailable" if status == "failed" else "")


@pytest.mark.parametrize("hops, max_attempts, expected", [
    ([hop(1, "vector", 0.6)], 2, ("generate", "vector", "quality_met")),
    ([hop(1, "vector", 0.59)], 2, ("re_route", "graph", "")),
    ([hop(1, "graph", 0.1)], 2, ("re_route", "vector", "")),
    ([hop(1, "vector", 0.1), hop(2, "graph", 0.1)], 2, ("partial_answer", "graph", "budget_exhausted")),
    ([hop(1, "vector", 0.1), hop(2, "graph", 0.1), hop(3, "web", 0.1)], 5, ("rewrite_query", "web", "")),
    ([hop(1, "vector", 0.1), hop(2, "graph", 0.1), hop(3, "web", 0, status="failed")], 5,
     ("rewrite_query", "graph", "")),
    ([hop(1, "vector", 0, status="failed"), hop(2, "graph", 0, status="failed"),
      hop(3, "web", 0, status="failed")], 5, ("partial_answer", "web", "budget_exhausted")),
    ([hop(1, "vector", 0.1, query="A b?"), hop(2, "vector", 0.1, query="a B")], 5,
     ("partial_answer", "vector", "repetition")),
    ([hop(1, "vector", 0.1, ids="abcde"), hop(2, "graph", 0.1, ids="abcd")], 5,
     ("partial_answer", "graph", "repetition")),
    ([hop(1, "vector", 0.1, ids="abcde"), hop(2, "graph", 0.1, ids="abc")], 5, ("re_route", "web", "")),
    ([hop(1, "vector", 0.9, query="q"), hop(2, "vector", 0.9, query="q")], 5, ("generate", "vector", "quality_met")),
])
def test_decide_next(hops, max_attempts, expected):
    action, strategy, reason, stop = decide_next(hops, 0.6, max_attempts)
    assert (action, strategy, stop) == expected
    assert reason


# ---- the loop bound, whatever the engine says -----------------------------------------------------------------

LABELS = st.sampled_from(["correct", "ambiguous", "incorrect", "CORRECT", "maybe"])


@hsettings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), max_attempts=st.integers(1, 5), web_up=st.booleans(), threshold=st.floats(0, 1))
def test_property_attempts_never_exceed_the_bound_and_every_run_ends(settings, data, max_attempts, web_up,
                                                                     threshold):
    words = st.sampled_from(["alpha", "beta", "Alpha!", "gamma delta", ""])

    def tool_docs(prefix):
        return lambda query: [make_doc(f"{prefix}{i}", f"{prefix} text {i}")
                              for i in data.draw(st.lists(st.integers(0, 5), max_size=4, unique=True))]

    kb = ToolsKB({"vector": ListTool("vector", tool_docs("v")), "graph": ListTool("graph", tool_docs("g")),
                  "web": ListTool("web", tool_docs("w"), available=(web_up, "maybe down")),
                  "sql": ListTool("sql", tool_docs("s"), available=(data.draw(st.booleans()), "no tables"))})
    engine = ScriptedEngine(
        classify=lambda question, known_entities: data.draw(st.sampled_from(["vector", "graph", "web", "direct",
                                                                             "sql", "nonsense"])),
        grade=lambda question, doc: (data.draw(LABELS), data.draw(st.one_of(st.floats(-1, 2), st.just(math.nan)))),
        evaluate=lambda question, docs, grades: data.draw(st.floats(allow_nan=True, allow_infinity=True)),
        rewrite=lambda question, query, docs, grades: data.draw(words),
        generate=lambda question, docs, grades, mode: data.draw(st.one_of(st.none(), st.just(""),
                                                                          st.just(Answer("", [], True, "")))),
    )
    run = run_question("alpha", kb, engine, settings.with_(max_attempts=max_attempts, threshold=threshold))
    assert_consistent(run)
    assert run.error is None
    assert len(run.attempts) <= max_attempts
    assert sum(1 for s in run.steps if s.node.startswith("retrieve_")) == len(run.attempts)
    graded = sum(len(s.documents) for s in run.steps if s.node.startswith("retrieve_"))
    reused = sum((s.output.get("grading") or {}).get("reused", 0) for s in run.steps if s.node == GRADE_DOCUMENTS)
    assert engine.count("grade") == graded - reused  # every retrieved document was graded (or kept its grade)
    if run.stop_reason == "quality_met":
        assert run.attempts[-1].quality >= threshold
    if run.partial:
        assert run.stop_reason in ("budget_exhausted", "repetition")


# ---- on a real knowledge base (real Chroma, BM25, embedded graph store) with the offline engine -----------------

SMALL_TEXTS = {
    "hr_leave.md": "# Annual leave\nEmployees get 15 days of annual leave after one year of service. "
                   "Leave requests go to the People Team.",
    "teams.md": "# Teams\nThe Search Platform Team owns Atlas. Seoyeon Kim leads the Search Platform Team. "
                "Atlas is the internal search service.",
    "pay.txt": "Salary contracts are renewed every March. Since 2023 salary contracts are signed electronically.",
}


@pytest.fixture(scope="module")
def real_kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("agentic-kb"), SMALL_TEXTS)
    yield kb
    kb.close()


@pytest.fixture(scope="module")
def offline(real_kb):
    from rag.engines import get_engine

    return get_engine(real_kb.settings)


def ask_real(kb, engine, question, **changes) -> Run:
    run = run_question(question, kb, engine, kb.settings.with_(**changes))
    assert_consistent(run)
    assert run.error is None, run.error
    return run


def test_real_kb_covered_question_is_answered_with_citations(real_kb, offline):
    run = ask_real(real_kb, offline, "How many days of annual leave do employees get after one year?")
    assert run.route == "vector" and run.stop_reason == "quality_met"
    assert run.quality_scores[0] >= 0.6 and not run.abstained
    grades = {d.source: d.grade for d in run.documents}
    assert grades["hr_leave.md"] == "correct"
    assert "hr_leave.md" in {c.source for c in run.citations}
    assert run.generator_context and run.engine["engine"] == "offline"


def test_real_kb_relational_question_goes_through_the_graph(real_kb, offline):
    run = ask_real(real_kb, offline, "Who leads the team that owns Atlas?")
    assert run.route == "graph"
    assert "Seoyeon Kim" in run.answer
    assert all(d.tool == "graph" for d in run.steps[1].documents) and run.steps[1].documents


def test_real_kb_trap_question_is_not_answered_from_a_similar_chunk(real_kb, offline):
    # the seed's trap: a salary-contract chunk looks similar to a minimum-wage question but does not answer it
    run = ask_real(real_kb, offline, "What was the minimum wage per hour in 2023?")
    pay = [d for d in run.documents if d.source == "pay.txt"]
    assert pay and all(d.grade == "incorrect" for d in pay)
    assert run.stop_reason in ("budget_exhausted", "repetition") and run.partial
    assert run.abstained
    assert len(run.attempts) == real_kb.settings.max_attempts


def test_real_kb_web_question_without_a_key_fails_visibly(real_kb, offline):
    run = ask_real(real_kb, offline, "What is the won/dollar exchange rate today?")
    assert run.route == "web"
    assert (run.attempts[0].strategy, run.attempts[0].status) == ("web", "failed")
    assert "TAVILY_API_KEY" in run.steps[1].reason
    assert [a.strategy for a in run.attempts][1:] == ["vector"]  # the switch is a recorded re-route
    assert RE_ROUTE in run.path and not any(d.tool == "web" for d in run.documents)


def test_real_kb_direct_question_skips_retrieval(real_kb, offline):
    run = ask_real(real_kb, offline, "What is 128 times 12?")
    assert run.path == [CLASSIFY, DIRECT_GENERATE] and "1536" in run.answer


def test_real_kb_scripted_loop_re_routes_rewrites_and_stops_on_repetition(real_kb):
    engine = ScriptedEngine(classify="vector", evaluate=0.1,
                            rewrite=lambda question, query, docs, grades: question.upper())
    run = ask_real(real_kb, engine, "Who owns Atlas?", max_attempts=5)
    assert [(a.strategy, a.status) for a in run.attempts] == [
        ("vector", "ok"), ("graph", "ok"), ("web", "failed"), ("graph", "repeated")]
    assert run.path.count(RE_ROUTE) == 2 and run.path.count(REWRITE_QUERY) == 1
    assert run.stop_reason == "repetition" and run.partial
    # the repeated graph attempt keeps the grades of the first one: same question, same documents, no second verdict
    reused = sum((s.output.get("grading") or {}).get("reused", 0) for s in run.steps if s.node == GRADE_DOCUMENTS)
    assert reused > 0 and engine.count("grade") == sum(a.n_documents for a in run.attempts) - reused


def test_real_kb_node_exception_is_recorded(real_kb):
    engine = ScriptedEngine(evaluate=ZeroDivisionError("quality model divided by zero"))
    run = run_question("Who owns Atlas?", real_kb, engine, real_kb.settings)
    assert_consistent(run)
    assert run.path[-1] == EVALUATE_CONTEXT and run.steps[-1].status == "failed"
    assert run.stop_reason == "error" and "divided by zero" in run.error


def test_an_exception_from_on_step_reaches_the_caller(settings):
    """A UI stops a script by raising from its callback: the run must not swallow that."""
    class Stop(Exception):
        pass

    def on_step(step):
        if step.node == GRADE_DOCUMENTS:
            raise Stop()

    engine = ScriptedEngine()
    with pytest.raises(Stop):
        run_question("Who founded Alpha?", make_kb(), engine, settings, on_step=on_step)
    assert engine.count("evaluate") == 0  # the graph stopped there


# ---- the llm engine end to end: real langchain-openai client against the stub on 127.0.0.1 -------------------

def test_llm_engine_run_records_every_model_call_and_survives_malformed_output(settings):
    from rag.engines import get_engine
    from tests.support.openai_stub import OpenAIStub, purpose_of

    key = "sk-" + "test-never-in-a-trace-123"  # split so secret scanners do not flag a fake key
    quality = iter([0.3, 0.9])

    def respond(body):
        purpose = purpose_of(body)
        if purpose == "classify":
            return {"strategy": "vector", "reason": "a factual question about the documents"}
        if purpose == "grade":
            text = body["messages"][-1]["content"]
            if "sells search software" in text:
                return "this is not JSON at all"  # malformed: recorded, a safe default is used
            return {"label": "correct", "score": 0.9, "reason": "states the founder"}
        if purpose == "quality":
            return {"score": next(quality), "reason": "scripted"}
        if purpose == "answer":
            return {"conclusion": "Kim founded Alpha.", "evidence": ["Kim founded Alpha [1]"], "citations": [1],
                    "uncertainty": "none", "insufficient_evidence": False}
        return "unexpected"

    docs = [make_doc("a:0", "Kim founded Alpha in 2019."), make_doc("a:1", "Alpha sells search software.")]
    kb = make_kb(vector=ListTool("vector", docs), graph=ListTool("graph", [make_doc("t:1", "Alpha founded_by Kim",
                                                                                  tool="graph")]))
    with OpenAIStub(respond=respond) as stub:
        # every decision a model call (the pre-issue-11 engine): the cheaper defaults are tests/test_llm_cost.py's
        llm_settings = settings.with_(engine="llm", openai_api_key=key, openai_base_url=stub.base_url,
                                      llm_timeout_s=20, llm_routing="model", llm_quality="model",
                                      llm_grading="per_doc")
        engine = get_engine(llm_settings)
        run = run_question("Who founded Alpha?", kb, engine, llm_settings)
        n_requests = len(stub.requests)
    assert_consistent(run)
    assert run.error is None
    assert run.path == [CLASSIFY, RETRIEVE_VECTOR, *LOOP, RE_ROUTE, RETRIEVE_GRAPH, *LOOP, GENERATE]
    assert run.quality_scores == [0.3, 0.9]
    assert run.llm_calls == n_requests == 1 + 2 + 1 + 1 + 1 + 1  # classify, 2+1 grades, 2 evaluates, answer
    assert run.tokens["total"] > 0
    malformed = [c for c in run.model_calls if c.error]
    assert len(malformed) == 1 and malformed[0].purpose == "grade"
    assert run.answer.startswith("Kim founded Alpha") or "Kim founded Alpha." in run.answer
    assert key not in json.dumps(run.to_dict(), ensure_ascii=False)
    assert run.settings["openai_api_key"] == "set"
