"""The naive baseline: vector top-k → generate. No grading, no quality check, no abstention logic.

It is allowed to fail silently — showing that failure next to the agentic run is the point.
Same trace format as the agentic variant: steps ``retrieve_vector`` and ``generate``.
"""
from __future__ import annotations

import time

from rag.config import Settings
from rag.trace import Run, StepTimer, now_iso
from rag.types import DecisionEngine
from rag.variants.base import (
    KnowledgeBaseLike,
    OnStep,
    TraceRecorder,
    answer_output,
    apply_answer,
    doc_records,
    error_text,
    failed_step,
    make_step,
    retrieve_with,
)

RETRIEVE_VECTOR = "retrieve_vector"
GENERATE = "generate"
GRAPH_EDGES: tuple[tuple[str, str], ...] = (("__start__", RETRIEVE_VECTOR), (RETRIEVE_VECTOR, GENERATE),
                                            (GENERATE, "__end__"))


class NaiveVariant:
    name = "naive"
    label = "Naive RAG"
    description = "vector top-k → generate (no grading, no reflection: it can fail silently)"

    def run(self, question: str, kb: KnowledgeBaseLike, engine: DecisionEngine, settings: Settings,
            on_step: OnStep | None = None) -> Run:
        recorder = TraceRecorder(question, self.name, engine, settings, on_step)
        run = recorder.run
        run.route = "vector"
        node, started_at, t0 = RETRIEVE_VECTOR, now_iso(), time.perf_counter()
        try:
            with StepTimer() as timer:
                outcome = retrieve_with(kb.tools(), "vector", question, settings.top_k)
            recorder.add(make_step(RETRIEVE_VECTOR, timer, inputs={"query": question, "top_k": settings.top_k},
                                   output={"n_documents": len(outcome.docs), "ids": [d.id for d in outcome.docs]},
                                   decision="ok" if outcome.ok else "failed", reason=outcome.note,
                                   status="ok" if outcome.ok else "failed",
                                   documents=doc_records(outcome.docs, attempt=0)))
            node, started_at, t0 = GENERATE, now_iso(), time.perf_counter()
            with StepTimer() as timer:
                answer = engine.generate(question, outcome.docs, None, mode="naive")
            recorder.add(make_step(GENERATE, timer, inputs={"question": question, "n_documents": len(outcome.docs),
                                                            "doc_ids": [d.id for d in outcome.docs]},
                                   output=answer_output(answer), decision="answered", reason=answer.reason,
                                   model_calls=answer.calls))
            apply_answer(run, answer)
            run.stop_reason = "naive"
        except Exception as exc:
            step = failed_step(node, started_at, t0, exc, inputs={"question": question})
            recorder.add(step)
            recorder.fail(f"step '{node}' failed: {error_text(exc)}")
        return recorder.finish()
