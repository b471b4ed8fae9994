"""Adaptive RAG (seed 003): a complexity classifier at the entry picks how much judgement a question gets.

```
START → classify_complexity ─simple→ direct_generate → END                      (no retrieval)
                            ├─moderate→ retrieve_once → generate_once → END      (one retrieval, then the answer)
                            └─complex→ retrieve → grade_documents → …            (the CRAG loop, rag.variants.crag)
```

The complex path is CRAG's own nodes and edges (``crag.add_crag``), so its attempts guard and honest "not found"
hold here too. The moderate path is deliberately the pipeline (no grading): that is what Adaptive RAG trades for
speed, and it leaves F1 / F7 open on questions the classifier calls moderate.
"""
from __future__ import annotations

from typing import Any, Literal

from langgraph.graph import END, START, StateGraph

from rag.config import Settings
from rag.trace import Attempt, Run, StepTimer
from rag.types import DecisionEngine
from rag.variants import crag
from rag.variants.base import KnowledgeBaseLike, OnStep, guarded, make_step
from rag.variants.judging import JudgingContext, apply_final_answer, generate_step, index_of, retrieve_step, run_judging

CLASSIFY_COMPLEXITY = "classify_complexity"
DIRECT_GENERATE = "direct_generate"
RETRIEVE_ONCE = "retrieve_once"
GENERATE_ONCE = "generate_once"
COMPLEXITIES = ("simple", "moderate", "complex")


class AdaptiveState(crag.CragState, total=False):
    complexity: str


def classify_complexity(state: AdaptiveState, runtime: Any) -> dict:
    """simple / moderate / complex, with the classifier's reason."""
    ctx, question = runtime.context, state["question"]
    with StepTimer() as timer:
        entities = list(ctx.known_entities())
        decision = ctx.engine.classify_complexity(question, entities)
    label, reason = str(decision.strategy).strip().lower(), decision.reason
    if label not in COMPLEXITIES:
        reason = f"unknown complexity {decision.strategy!r}, treated as complex (the checked path); {reason}"
        label = "complex"
    step = make_step(CLASSIFY_COMPLEXITY, timer, index=index_of(state),
                     inputs={"question": question, "known_entities": len(entities)},
                     output={"complexity": label, "signals": dict(decision.signals)}, decision=label, reason=reason,
                     model_calls=decision.calls)
    return {"complexity": label, "steps": [step]}


def route_after_complexity(state: AdaptiveState) -> Literal["direct_generate", "retrieve_once", "retrieve"]:
    return {"simple": DIRECT_GENERATE, "moderate": RETRIEVE_ONCE}.get(state["complexity"], crag.RETRIEVE)  # type: ignore[return-value]


def direct_generate(state: AdaptiveState, runtime: Any) -> dict:
    """Simple: answer without retrieval."""
    answer, step = generate_step(DIRECT_GENERATE, state, runtime.context, [], None, "direct")
    return {"answer": answer, "stop_reason": "direct", "steps": [step]}


def retrieve_once(state: AdaptiveState, runtime: Any) -> dict:
    """Moderate: one retrieval, no grading, no second try."""
    docs, step, ok, note = retrieve_step(RETRIEVE_ONCE, state, runtime.context, state["question"], 1)
    record = Attempt(number=1, strategy="vector", query=state["question"], n_documents=len(docs),
                     status="ok" if ok else "failed", note=note)
    return {"attempt": 1, "docs": docs, "attempts": [record], "steps": [step]}


def generate_once(state: AdaptiveState, runtime: Any) -> dict:
    """Moderate: answer from the retrieved documents as they are."""
    answer, step = generate_step(GENERATE_ONCE, state, runtime.context, state.get("docs") or [], None, "naive", 1)
    return {"answer": answer, "stop_reason": "single_retrieval", "steps": [step]}


def build_graph():
    graph = StateGraph(AdaptiveState, context_schema=JudgingContext)
    for node in (classify_complexity, direct_generate, retrieve_once, generate_once):
        graph.add_node(node.__name__, guarded(node.__name__, node))
    graph.add_edge(START, CLASSIFY_COMPLEXITY)
    graph.add_conditional_edges(CLASSIFY_COMPLEXITY, route_after_complexity)
    graph.add_edge(DIRECT_GENERATE, END)
    graph.add_edge(RETRIEVE_ONCE, GENERATE_ONCE)
    graph.add_edge(GENERATE_ONCE, END)
    crag.add_crag(graph, entry_from=None)
    return graph.compile()


NOTES = {
    CLASSIFY_COMPLEXITY: ("질문의 복잡도를 먼저 분류합니다: 단순(검색 없음), 중간(한 번 검색), 복잡(검증 루프). 쉬운 질문에 비용을 아낍니다.",
                          "Classifies the question first: simple (no retrieval), moderate (one retrieval), complex "
                          "(the checked loop) — easy questions stay cheap."),
    DIRECT_GENERATE: ("단순한 질문이라 검색 없이 바로 답합니다 (F6 방지).",
                      "A simple question: answered without retrieval (prevents F6)."),
    RETRIEVE_ONCE: ("중간 난이도: 한 번만 검색합니다. 채점은 하지 않습니다.", "Moderate: one retrieval, no grading."),
    GENERATE_ONCE: ("검색 결과 그대로 답합니다. 여기서는 F1·F7이 열려 있습니다.",
                    "Answers from the results as they are; F1 and F7 stay open on this path."),
    **crag.NOTES,
}
SUBTITLES = {CLASSIFY_COMPLEXITY: "복잡도 분류 · complexity", DIRECT_GENERATE: "바로 답변 · simple",
             RETRIEVE_ONCE: "한 번 검색 · moderate", GENERATE_ONCE: "답변 · moderate", **crag.SUBTITLES}


class AdaptiveVariant:
    name = "adaptive"

    @staticmethod
    def step_limit(settings: Settings) -> int:
        """The graph's recursion_limit for a run (and for a what-if fork of one) under these settings."""
        return crag.recursion_limit(settings.max_attempts) + 2
    label = "Adaptive RAG"
    description = ("classify complexity → simple: answer without retrieval · moderate: one retrieval, then answer · "
                   "complex: the CRAG loop (grade, refine, web, rewrite, attempts guard)")
    build_graph = staticmethod(build_graph)
    answer_nodes = (DIRECT_GENERATE, GENERATE_ONCE, crag.GENERATE, crag.NOT_FOUND)
    loop_nodes = (crag.REWRITE_QUERY,)
    notes = NOTES
    subtitles = SUBTITLES
    min_calls = "simple: 2 · moderate: 2 · complex: 1 + CRAG's N + k + 1"
    prevents = {"F6": "simple questions skip retrieval", "F5": "complex path: CRAG's attempts guard",
                "F1": "complex path only (CRAG grading)"}
    leaves_open = {"F1": "moderate path: ungraded documents reach the generator",
                   "F3": "no check of the answer", "F4": "no check of the answer",
                   "F7": "moderate path never abstains; a misclassified question is not caught"}

    def run(self, question: str, kb: KnowledgeBaseLike, engine: DecisionEngine, settings: Settings,
            on_step: OnStep | None = None) -> Run:
        def finish(run, outcome, ctx, recorder):
            final = outcome.final
            complexity = final.get("complexity")
            run.route = {"simple": "direct", "moderate": "vector", "complex": "vector"}.get(complexity or "", None)
            run.attempts = list(final.get("attempts") or [])
            apply_final_answer(run, final)
            run.partial = run.stop_reason == "attempts_guard"

        return run_judging(self, question, kb, engine, settings, on_step, {"attempt": 0},
                           self.step_limit(settings), finish)
