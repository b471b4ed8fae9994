"""The trace: what a run did, step by step. The UI renders only this.

A ``Run`` holds the question, variant, settings and one ``Step`` per graph node
executed (in order). Each step records its inputs, output, decision and reason,
the model calls it made and the documents it saw. ``Run.to_dict()`` is the JSON
export; ``Run.from_dict()`` reads it back.
"""
from __future__ import annotations

import time
import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any

from rag.types import Citation, ModelCall, Retrieved

SCHEMA_VERSION = 1


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@dataclass
class DocRecord:
    """A document as one step saw it, with its grade once graded."""

    id: str
    source: str
    text: str
    score: float
    tool: str
    doc_id: str | None = None
    chunk_index: int | None = None
    attempt: int = 0  # 1-based attempt number; 0 for naive / direct
    grade: str | None = None  # correct | ambiguous | incorrect (None: not graded, e.g. naive)
    grade_score: float | None = None
    grade_reason: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_retrieved(cls, doc: Retrieved, attempt: int) -> "DocRecord":
        return cls(id=doc.id, source=doc.source, text=doc.text, score=float(doc.score), tool=doc.tool,
                   doc_id=doc.doc_id, chunk_index=doc.chunk_index, attempt=attempt, metadata=dict(doc.metadata))


@dataclass
class Step:
    index: int  # 0-based position in the run
    node: str  # graph node name, e.g. "classify", "retrieve_vector"
    started_at: str
    duration_ms: float
    attempt: int = 0
    inputs: dict[str, Any] = field(default_factory=dict)
    output: dict[str, Any] = field(default_factory=dict)
    decision: str = ""  # e.g. "vector", "re_route", "generate"
    reason: str = ""
    status: str = "ok"  # ok | failed | skipped
    error: str | None = None
    model_calls: list[ModelCall] = field(default_factory=list)
    documents: list[DocRecord] = field(default_factory=list)


@dataclass
class Attempt:
    number: int  # 1-based
    strategy: str
    query: str
    quality: float | None = None
    threshold: float | None = None
    n_documents: int = 0
    n_correct: int = 0
    status: str = "ok"  # ok | failed (tool unavailable / error) | repeated
    note: str = ""


@dataclass
class Run:
    question: str
    variant: str
    settings: dict[str, Any]
    engine: dict[str, Any] = field(default_factory=dict)  # engine.describe()
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    created_at: str = field(default_factory=now_iso)
    schema_version: int = SCHEMA_VERSION
    route: str | None = None  # first strategy chosen
    path: list[str] = field(default_factory=list)  # node names in execution order
    edges: list[list[str]] = field(default_factory=list)  # [from, to] edges taken, incl. "__start__"/"__end__"
    steps: list[Step] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    answer: str = ""
    citations: list[Citation] = field(default_factory=list)
    abstained: bool = False
    partial: bool = False
    # quality_met | typed_evidence | meaning_only | budget_exhausted | repetition | direct | naive | error
    stop_reason: str = ""
    generator_context: str = ""  # exactly what the generator was given as context
    generator_prompt: list[dict[str, str]] = field(default_factory=list)
    error: str | None = None
    wall_ms: float = 0.0
    # Answer cache (rag.cache): {"hit": True, "original_run_id", "similarity", "cached_question", "kb_revision"}
    # when this run was served from the cache (no steps, no model calls); empty for a run that was computed.
    cache: dict[str, Any] = field(default_factory=dict)
    # What-if replay (rag.replay): the run's LangGraph checkpoints {"thread_id", "checkpoint_id"}; a fork also has
    # {"parent_run_id", "step", "node", "edit": {...}}. Empty for a run recorded without checkpoints.
    replay: dict[str, Any] = field(default_factory=dict)

    # ---- derived totals -------------------------------------------------
    @property
    def model_calls(self) -> list[ModelCall]:
        return [c for s in self.steps for c in s.model_calls]

    @property
    def llm_calls(self) -> int:
        return len(self.model_calls)

    @property
    def tokens(self) -> dict[str, int]:
        calls = self.model_calls
        prompt = sum(c.prompt_tokens for c in calls)
        completion = sum(c.completion_tokens for c in calls)
        return {"prompt": prompt, "completion": completion, "total": prompt + completion}

    @property
    def documents(self) -> list[DocRecord]:
        """Every document seen, with its final grade: graded records win over ungraded ones."""
        seen: dict[tuple[int, str], DocRecord] = {}
        for step in self.steps:
            for d in step.documents:
                key = (d.attempt, d.id)
                if key not in seen or d.grade is not None:
                    seen[key] = d
        return list(seen.values())

    @property
    def quality_scores(self) -> list[float]:
        return [a.quality for a in self.attempts if a.quality is not None]

    def cost(self) -> dict[str, Any]:
        """Input / output tokens (and money with a price table, ``RAG_LLM_PRICES``) per role: ``rag.cost``."""
        from rag.cost import run_cost

        return run_cost(self.model_calls, (self.settings or {}).get("llm_prices"))

    def totals(self) -> dict[str, Any]:
        return {"llm_calls": self.llm_calls, "tokens": self.tokens, "wall_ms": round(self.wall_ms, 1),
                "steps": len(self.steps), "attempts": len(self.attempts), "cost": self.cost()}

    # ---- serialisation --------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["totals"] = self.totals()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Run":
        data = dict(data)
        data.pop("totals", None)
        steps = []
        for s in data.pop("steps", []):
            s = dict(s)
            s["model_calls"] = [ModelCall(**c) for c in s.get("model_calls", [])]
            s["documents"] = [DocRecord(**d) for d in s.get("documents", [])]
            steps.append(Step(**s))
        attempts = [Attempt(**a) for a in data.pop("attempts", [])]
        citations = [Citation(**c) for c in data.pop("citations", [])]
        return cls(**data, steps=steps, attempts=attempts, citations=citations)

    def to_cli_json(self) -> dict[str, Any]:
        """The `python -m rag ask --json` contract."""
        return {
            "run_id": self.run_id,
            "question": self.question,
            "variant": self.variant,
            "route": self.route,
            "path": list(self.path),
            "attempts": len(self.attempts),
            "strategies": [a.strategy for a in self.attempts],
            "quality_scores": self.quality_scores,
            "threshold": self.settings.get("threshold"),
            "documents": [
                {"id": d.id, "source": d.source, "score": round(d.score, 4), "grade": d.grade,
                 "grade_score": d.grade_score, "reason": d.grade_reason, "tool": d.tool, "attempt": d.attempt}
                for d in self.documents
            ],
            "answer": self.answer,
            "citations": [{"id": c.id, "source": c.source, "text": c.text} for c in self.citations],
            "abstained": self.abstained,
            "partial": self.partial,
            "stop_reason": self.stop_reason,
            "llm_calls": self.llm_calls,
            "tokens": self.tokens["total"],
            "wall_ms": round(self.wall_ms, 1),
            "error": self.error,
        }


class StepTimer:
    """Measures one node: ``with StepTimer() as t: ...; t.started_at, t.duration_ms``."""

    def __enter__(self) -> "StepTimer":
        self.started_at = now_iso()
        self._t0 = time.perf_counter()
        self.duration_ms = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.duration_ms = (time.perf_counter() - self._t0) * 1000.0
