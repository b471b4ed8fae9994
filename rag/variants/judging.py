"""What the judging-RAG variants (tool_agent, self_rag, crag, adaptive) share: the per-run context, the common
step-building parts (retrieve, grade each document, generate, rewrite) and the run wrapper around ``stream_graph``.

Every node still lives in its variant's module and appends its own ``Step``; the helpers here only keep those
modules about their control flow.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from rag.config import Settings
from rag.engines.roles import RoleEngine, as_roles
from rag.trace import Attempt, Run, Step, StepTimer, now_iso
from rag.types import Answer, DecisionEngine, Grade, Retrieved
from rag.variants.base import (
    USABLE_GRADES,
    KnowledgeBaseLike,
    OnStep,
    TraceRecorder,
    answer_output,
    apply_answer,
    clean_grade,
    error_text,
    grade_counts,
    index_of,
    make_step,
    retrieval_step,
)
from rag.variants.graphrun import GraphOutcome, stream_graph


@dataclass
class JudgingContext:
    """Per-run parts the nodes use besides the state (the compiled graphs are shared)."""

    engine: RoleEngine
    tools: dict[str, Any]
    settings: Settings
    known_entities: Callable[[], list[str]] = list


def retrieve_step(node: str, state: dict, ctx: JudgingContext, query: str, attempt: int,
                  strategy: str = "vector") -> tuple[list[Retrieved], Step, bool, str]:
    """One retrieval with ``strategy``: (docs, its step, ok, note); unavailable is a failed step, never a switch."""
    top_k = ctx.settings.top_k
    outcome, step = retrieval_step(node, ctx.tools, strategy, query, top_k, index=index_of(state), attempt=attempt,
                                   inputs={"query": query, "strategy": strategy, "top_k": top_k})
    return outcome.docs, step, outcome.ok, outcome.note


def grade_each(question: str, docs: list[Retrieved], ctx: JudgingContext) -> list[Grade]:
    return [clean_grade(ctx.engine.grade(question, doc)) for doc in docs]


def usable(docs: list[Retrieved], grades: list[Grade]) -> tuple[list[Retrieved], list[Grade]]:
    pairs = [(d, g) for d, g in zip(docs, grades) if g.label in USABLE_GRADES]
    return [d for d, _ in pairs], [g for _, g in pairs]


def generate_step(node: str, state: dict, ctx: JudgingContext, docs: list[Retrieved], grades: list[Grade] | None,
                  mode: str, attempt: int = 0, extra_inputs: dict | None = None) -> tuple[Answer, Step]:
    question = state["question"]
    with StepTimer() as timer:
        answer = ctx.engine.generate(question, docs, grades, mode=mode)
    step = make_step(node, timer, index=index_of(state), attempt=attempt,
                     inputs={"question": question, "mode": mode, "n_documents": len(docs),
                             "doc_ids": [d.id for d in docs], **(extra_inputs or {})},
                     output=answer_output(answer), decision="abstained" if answer.abstained else "answered",
                     reason=answer.reason, model_calls=answer.calls)
    return answer, step


def rewrite_step(node: str, state: dict, ctx: JudgingContext, docs: list[Retrieved], grades: list[Grade],
                 attempt: int, why: str = "") -> tuple[str, Step]:
    question, query = state["question"], state.get("query") or state["question"]
    with StepTimer() as timer:
        result = ctx.engine.rewrite(question, query, docs, grades)
    new_query = " ".join(str(result.query or "").split()) or query
    step = make_step(node, timer, index=index_of(state), attempt=attempt,
                     inputs={"question": question, "query": query}, output={"query": new_query},
                     decision=new_query, reason=result.reason or why, model_calls=result.calls)
    return new_query, step


def attempt_record(number: int, strategy: str, query: str, docs: list[Retrieved], grades: list[Grade],
                   status: str = "ok", note: str = "") -> Attempt:
    return Attempt(number=number, strategy=strategy, query=query, quality=None, threshold=None,
                   n_documents=len(docs), n_correct=sum(1 for g in grades if g.label == "correct"), status=status,
                   note=note)


def limit_step(node: str, limit: int, index: int, reason: str, answer: Answer | None = None) -> Step:
    """The step that records a loop bound being hit (F5): which bound, after how many steps, what was answered."""
    return Step(index=index, node=node, started_at=now_iso(), duration_ms=0.0, decision="stopped",
                reason=reason, status="failed", error=None,
                inputs={"recursion_limit": limit}, output=answer_output(answer) if answer else {},
                model_calls=list(answer.calls) if answer else [])


def run_judging(variant: Any, question: str, kb: KnowledgeBaseLike, engine: DecisionEngine, settings: Settings,
                on_step: OnStep | None, initial: dict, recursion_limit: int,
                finish: Callable[[Run, GraphOutcome, JudgingContext, TraceRecorder], None]) -> Run:
    """Run ``variant``'s compiled graph from ``initial``; ``finish`` copies the final state into the run."""
    from rag.variants import registry

    recorder = TraceRecorder(question, variant.name, engine, settings, on_step)
    try:
        ctx = JudgingContext(engine=as_roles(engine), tools=kb.tools(), settings=settings,
                             known_entities=kb.known_entities)
        graph = registry.compiled_graph(variant.name) or variant.build_graph()
    except Exception as exc:
        recorder.fail(f"the variant could not start: {error_text(exc)}")
        return recorder.finish()
    outcome = stream_graph(graph, {"question": question, "query": question, **initial}, ctx, recorder,
                           recursion_limit)
    finish(recorder.run, outcome, ctx, recorder)
    return recorder.finish()


def apply_final_answer(run: Run, final: dict) -> None:
    answer = final.get("answer")
    if run.error is None and answer is not None:
        apply_answer(run, answer)
        run.stop_reason = final.get("stop_reason") or run.stop_reason
