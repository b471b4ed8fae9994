"""The registry is the only list of variants: a variant defined only in this file shows up in the CLI choices, in
the diagram drawn from its compiled graph (Ask and the trace inspector, through AppTest), in the teaching notes and
in an evaluation report — with no other file changed."""
from __future__ import annotations

import operator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph

from rag.config import Settings
from rag.trace import Run, Step, StepTimer
from rag.variants import registry, run_question
from rag.variants.base import TraceRecorder, apply_answer, doc_records, guarded, make_step, retrieve_with
from rag.variants.graphrun import stream_graph
from tests.support.scripted import ListTool, ScriptedEngine, ToolsKB, make_doc

REPO = Path(__file__).resolve().parents[1]


class EchoState(TypedDict, total=False):
    question: str
    docs: list
    answer: Any
    steps: Annotated[list[Step], operator.add]


@dataclass
class EchoContext:
    engine: Any
    tools: dict
    settings: Settings


def lookup(state, runtime):
    with StepTimer() as t:
        outcome = retrieve_with(runtime.context.tools, "vector", state["question"], 2)
    return {"docs": outcome.docs, "steps": [make_step("lookup", t, output={"n": len(outcome.docs)},
                                                      documents=doc_records(outcome.docs, 1))]}


def echo_answer(state, runtime):
    with StepTimer() as t:
        answer = runtime.context.engine.generate(state["question"], state["docs"], None, mode="naive")
    return {"answer": answer, "steps": [make_step("echo_answer", t, inputs={"doc_ids": [d.id for d in state["docs"]]},
                                                  model_calls=answer.calls)]}


def build_echo_graph():
    graph = StateGraph(EchoState, context_schema=EchoContext)
    graph.add_node("lookup", guarded("lookup", lookup))
    graph.add_node("echo_answer", guarded("echo_answer", echo_answer))
    graph.add_edge(START, "lookup")
    graph.add_edge("lookup", "echo_answer")
    graph.add_edge("echo_answer", END)
    return graph.compile()


class EchoVariant:
    name = "echo_test"
    label = "Echo (test only)"
    description = "lookup → echo_answer"
    build_graph = staticmethod(build_echo_graph)
    answer_nodes = ("echo_answer",)
    loop_nodes = ()
    subtitles = {"lookup": "찾아보기 · lookup"}
    notes = {"lookup": ("테스트 전용 노드입니다.", "A node that exists only in this test.")}
    min_calls = "1"
    prevents: dict = {}
    leaves_open = {"F1": "no grading"}

    def run(self, question, kb, engine, settings, on_step=None) -> Run:
        recorder = TraceRecorder(question, self.name, engine, settings, on_step)
        out = stream_graph(registry.compiled_graph(self.name), {"question": question},
                           EchoContext(engine, kb.tools(), settings), recorder, recursion_limit=5)
        if out.final.get("answer") is not None:
            apply_answer(recorder.run, out.final["answer"])
            recorder.run.stop_reason = "echo"
        return recorder.finish()


@pytest.fixture
def echo_registered():
    registry.register_variant(EchoVariant)
    yield EchoVariant
    registry.unregister_variant(EchoVariant.name)


def kb() -> ToolsKB:
    return ToolsKB({"vector": ListTool("vector", [make_doc("e:1", "Echo fact one."), make_doc("e:2", "Echo two.")])})


def test_cli_choices_come_from_the_registry(echo_registered, capsys):
    from rag import cli

    parser = cli.build_parser()
    args = parser.parse_args(["ask", "Q?", "--variant", "echo_test"])
    assert args.variant == "echo_test"
    assert "echo_test" in cli.variant_choices()
    registry.unregister_variant("echo_test")
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["ask", "Q?", "--variant", "echo_test"])
    assert "invalid choice" in capsys.readouterr().err


def test_diagram_and_notes_come_from_the_compiled_graph(echo_registered, data_dir):
    from rag_ui import diagram, notes

    assert diagram.graph_edges("echo_test") == [("__start__", "lookup"), ("lookup", "echo_answer"),
                                                ("echo_answer", "__end__")]
    run = run_question("What does echo say?", kb(), ScriptedEngine(), Settings.from_env(), variant="echo_test")
    assert run.path == ["lookup", "echo_answer"] and run.error is None
    dot = diagram.agent_dot(run)
    assert "찾아보기 · lookup" in dot and '"lookup" -> "echo_answer"' in dot
    assert notes.teaching_note(run.steps[0], run)[1].startswith("A node that exists only in this test.")
    # the metrics read the variant's answer node
    from rag.eval.metrics import used_documents

    assert [d.id for d in used_documents(run)] == ["e:1", "e:2"]


def test_eval_report_lists_the_test_variant(echo_registered, data_dir):
    from rag.eval.questions import parse_questions
    from rag.eval.runner import evaluate

    qs = parse_questions(['{"id": "q1", "question": "What does echo say?", "kind": "covered", '
                          '"expected": [["Echo fact one"]], "relevant_sources": ["test.md"]}'])
    report = evaluate(qs, ["naive", "echo_test"], kb(), ScriptedEngine(), Settings.from_env())
    assert set(report["variants"]) == {"naive", "echo_test"}
    assert report["variants"]["echo_test"]["key_fact_hit_rate"] == 1.0
    assert report["variants"]["echo_test"]["context_precision"] == 1.0


def test_ask_and_inspector_draw_the_test_variant(echo_registered, data_dir, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from rag.runstore import RunStore
    from rag_ui import diagram
    from rag_ui.state import ASK_RESULT, INSPECT_RUN_ID

    settings = Settings.from_env()
    run = run_question("What does echo say?", kb(), ScriptedEngine(), settings, variant="echo_test",
                       store=RunStore(settings.data_dir))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.session_state[ASK_RESULT] = {"run": run, "naive": None}
    at.switch_page("app_pages/ask.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    specs = [c.proto.spec for c in at.get("graphviz_chart")]
    assert diagram.agent_dot(run) in specs
    assert any("echo_answer" in s and "찾아보기" in s for s in specs)

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.session_state[INSPECT_RUN_ID] = run.run_id
    at.switch_page("app_pages/inspector.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="inspector_pick").value == run.run_id
    assert any("찾아보기" in c.proto.spec for c in at.get("graphviz_chart"))
