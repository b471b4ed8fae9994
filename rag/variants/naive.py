"""The naive baseline: vector top-k → generate. No grading, no quality check, no abstention logic.

It is allowed to fail silently — showing that failure next to the judging variants is the point.
A two-node LangGraph graph (``retrieve_vector`` → ``generate``), so it is drawn and run like every other variant.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict
import operator

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from rag.config import Settings
from rag.trace import Run, Step, StepTimer
from rag.types import Answer, DecisionEngine, Retrieved
from rag.variants.base import (
    KnowledgeBaseLike,
    OnStep,
    TraceRecorder,
    answer_output,
    apply_answer,
    error_text,
    guarded,
    make_step,
    retrieval_step,
)
from rag.variants.graphrun import stream_graph

RETRIEVE_VECTOR = "retrieve_vector"
GENERATE = "generate"


class NaiveState(TypedDict, total=False):
    question: str
    docs: list[Retrieved]
    answer: Answer
    steps: Annotated[list[Step], operator.add]


@dataclass
class NaiveContext:
    engine: DecisionEngine
    tools: dict[str, Any]
    settings: Settings


def retrieve_vector(state: NaiveState, runtime: Runtime[NaiveContext]) -> dict:
    """Top-k chunks by vector + BM25 similarity, as they come: no grading, no second try."""
    question, top_k = state["question"], runtime.context.settings.top_k
    outcome, step = retrieval_step(RETRIEVE_VECTOR, runtime.context.tools, "vector", question, top_k,
                                   inputs={"query": question, "top_k": top_k})
    return {"docs": outcome.docs, "steps": [step]}


def generate(state: NaiveState, runtime: Runtime[NaiveContext]) -> dict:
    """Answer from every retrieved chunk (the generator is never told which ones are relevant)."""
    question, docs = state["question"], state.get("docs") or []
    with StepTimer() as timer:
        answer = runtime.context.engine.generate(question, docs, None, mode="naive")
    step = make_step(GENERATE, timer, inputs={"question": question, "n_documents": len(docs),
                                              "doc_ids": [d.id for d in docs]},
                     output=answer_output(answer), decision="answered", reason=answer.reason,
                     model_calls=answer.calls)
    return {"answer": answer, "steps": [step]}


def build_graph():
    graph = StateGraph(NaiveState, context_schema=NaiveContext)
    for node in (retrieve_vector, generate):
        graph.add_node(node.__name__, guarded(node.__name__, node))
    graph.add_edge(START, RETRIEVE_VECTOR)
    graph.add_edge(RETRIEVE_VECTOR, GENERATE)
    graph.add_edge(GENERATE, END)
    return graph.compile()


@functools.lru_cache(maxsize=1)
def compiled_graph():
    return build_graph()


# Kept for callers that import it; derived from the compiled graph, not kept by hand.
GRAPH_EDGES: tuple[tuple[str, str], ...] = tuple((e.source, e.target) for e in compiled_graph().get_graph().edges)


class NaiveVariant:
    name = "naive"

    @staticmethod
    def step_limit(settings: Settings) -> int:
        """The graph's recursion_limit for a run (and for a what-if fork of one) under these settings."""
        return 10
    label = "Naive RAG"
    description = "vector top-k → generate (no grading, no reflection: it can fail silently)"
    build_graph = staticmethod(compiled_graph)
    answer_nodes = (GENERATE,)
    loop_nodes: tuple[str, ...] = ()
    subtitles = {RETRIEVE_VECTOR: "벡터 검색 · vector", GENERATE: "답변 생성 · answer"}
    notes = {
        RETRIEVE_VECTOR: ("(naive RAG) 질문과 비슷한 문서 조각 상위 k개를 그대로 가져옵니다. 채점도 재검색도 없습니다.",
                          "(naive RAG) Takes the top-k chunks most similar to the question as they are: no grading, "
                          "no second try."),
        GENERATE: ("가져온 조각을 모두 생성기에 넘겨 답을 씁니다. 관련 없는 조각이 섞여도 알 수 없습니다.",
                   "Hands every retrieved chunk to the generator; it cannot tell when an irrelevant one slipped in."),
    }
    min_calls = "1 (generate)"
    prevents: dict[str, str] = {}
    leaves_open = {"F1": "no grading: whatever is retrieved is used", "F2": "no filtering of noisy chunks",
                   "F3": "no check of the answer against the context", "F4": "no check of the answer",
                   "F6": "always retrieves", "F7": "never abstains on its own"}

    def run(self, question: str, kb: KnowledgeBaseLike, engine: DecisionEngine, settings: Settings,
            on_step: OnStep | None = None) -> Run:
        recorder = TraceRecorder(question, self.name, engine, settings, on_step)
        run = recorder.run
        run.route = "vector"
        try:
            context = NaiveContext(engine=engine, tools=kb.tools(), settings=settings)
        except Exception as exc:
            recorder.fail(f"the variant could not start: {error_text(exc)}")
            return recorder.finish()
        outcome = stream_graph(compiled_graph(), {"question": question}, context, recorder, recursion_limit=self.step_limit(settings))
        if run.error is None and outcome.final.get("answer") is not None:
            apply_answer(run, outcome.final["answer"])
            run.stop_reason = "naive"
        return recorder.finish()
