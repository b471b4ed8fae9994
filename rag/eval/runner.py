"""Run a question set with each variant on one knowledge base and score every run.

Every run goes through ``rag.variants.run_question`` with the run store, so it is saved like any other run and each
row of the report carries its ``run_id`` (open it in the trace inspector or with ``python -m rag runs show``).
"""
from __future__ import annotations

import csv
import io
import json
import logging
import time
from pathlib import Path
from typing import Any, Callable

from rag.config import Settings
from rag.eval.metrics import aggregate, routing_confusion, score_run
from rag.eval.questions import QuestionSet
from rag.failures import failure_rates, family_table
from rag.trace import Run, now_iso
from rag.types import DecisionEngine, RagError

log = logging.getLogger(__name__)

EvalProgress = Callable[[int, int, str], None]  # (runs done, runs in all, "variant · question id")

# Per-question columns of the CSV export, in order (the JSON rows hold the same keys).
QUESTION_COLUMNS: tuple[str, ...] = (
    "id", "variant", "kind", "expected_route", "route", "route_correct", "abstained", "partial", "flagged", "hit",
    "facts_matched", "facts_expected", "silent_failure", "context_precision", "context_recall",
    "context_precision_retrieved", "context_recall_retrieved", "answer_similarity", "reference_context_recall",
    "n_used", "n_retrieved", "attempts", "re_routed", "rewritten", "llm_calls", "tokens", "wall_ms", "stop_reason",
    "quality", "facts_in_context", "run_id", "error", "question", "answer",
)


def _warm_up(kb: Any, question: str, settings: Settings) -> None:
    """One untimed retrieval so that loading the embedder and opening stores is not charged to the first run."""
    try:
        tool = kb.tools().get("vector")
        if tool is not None and tool.available()[0]:
            tool.run(question, 1)
    except Exception as exc:  # a broken store shows up in the real runs, with its message in the trace
        log.debug("warm-up retrieval failed: %s", exc)


def evaluate(question_set: QuestionSet, variants: list[str], kb: Any, engine: DecisionEngine, settings: Settings,
             store: Any = None, progress: EvalProgress | None = None) -> dict[str, Any]:
    """Run every question with each variant (question by question, alternating which variant goes first).

    Returns ``{"variants": {name: metrics}, "questions": [row, ...], "confusion": {name: {expected: {route: n}}},
    "question_set", "n_questions", "settings", "engine", "created_at", "wall_s"}``. Runs are saved to ``store``.
    """
    from rag.variants import VARIANTS, run_question

    variants = [v.strip() for v in variants if v and v.strip()]
    if not variants:
        raise RagError("no variants to evaluate: pass e.g. --variants naive,agentic")
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise RagError(f"unknown variant(s) {', '.join(unknown)}: choose from {', '.join(VARIANTS)}")
    variants = list(dict.fromkeys(variants))
    total = len(question_set.questions) * len(variants)
    rows: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    if question_set.questions:
        _warm_up(kb, question_set.questions[0].question, settings)
    done = 0
    for number, q in enumerate(question_set.questions):
        # alternate which variant goes first, so warm caches and machine noise do not favour one of them
        for variant in (variants if number % 2 == 0 else variants[::-1]):
            if progress:
                progress(done, total, f"{variant} · {q.id}")
            try:
                run = run_question(q.question, kb=kb, engine=engine, settings=settings, variant=variant, store=store)
            except Exception as exc:  # run_question records failures itself; this is a last resort, still stored
                run = Run(question=q.question, variant=variant, settings=settings.public(), error=str(exc),
                          stop_reason="error")
                if store is not None:
                    try:
                        store.save(run)
                    except Exception:
                        log.warning("could not save the failed run for %s", q.id)
            rows.append(score_run(q, run))
            rows[-1].update(_failure_labels(run))  # issue 10: F1–F7 labels per run
            done += 1
    if progress:
        progress(done, total, "done")
    position = {v: i for i, v in enumerate(variants)}
    rows.sort(key=lambda r: position[r["variant"]])  # stable: question order within each variant
    order = {q.id: i for i, q in enumerate(question_set.questions)}
    rows.sort(key=lambda r: order[r["id"]])  # then question by question, variants in the order asked
    by_variant = {v: [r for r in rows if r["variant"] == v] for v in variants}
    try:
        engine_info = dict(engine.describe())
    except Exception:
        engine_info = {}
    engine_info.setdefault("name", engine_info.get("engine") or getattr(engine, "name", "?"))
    report = {
        "question_set": question_set.name,
        "n_questions": len(question_set.questions),
        "variants": {v: aggregate(r) for v, r in by_variant.items()},
        "confusion": {v: routing_confusion(r) for v, r in by_variant.items()},
        "failures": {v: failure_rates(r) for v, r in by_variant.items()},  # issue 10: F-label rate per variant
        "questions": rows,
        "settings": settings.public(),
        "engine": engine_info,
        "created_at": now_iso(),
        "wall_s": round(time.perf_counter() - t0, 2),
    }
    report["family"] = family_table(report)  # issue 10: the seed-001-style table, declared beside measured
    return report


def _failure_labels(run: Run) -> dict[str, Any]:
    """The run's F1–F7 labels (rag.failures): observed codes, unchecked codes, and the one-line reasons."""
    from rag.failures import label_run

    labels = label_run(run)
    return {"failures": [f.code for f in labels if f.level == "observed"],
            "failures_unchecked": [f.code for f in labels if f.level == "unchecked"],
            "failure_reasons": {f.code: f.reason for f in labels}}


# ---- exports --------------------------------------------------------------------------------------------------------
def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return round(value, 4)
    return value


def questions_csv(report: dict[str, Any]) -> str:
    """The per-question rows as CSV text."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(QUESTION_COLUMNS)
    for row in report["questions"]:
        writer.writerow([_cell(row.get(c)) for c in QUESTION_COLUMNS])
    return buf.getvalue()


def metrics_csv(report: dict[str, Any]) -> str:
    """One line per variant, one column per metric."""
    variants = report["variants"]
    keys: list[str] = []
    for m in variants.values():
        keys.extend(k for k in m if k not in keys)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["variant", *keys])
    for name, m in variants.items():
        writer.writerow([name, *(_cell(m.get(k)) for k in keys)])
    return buf.getvalue()


def report_json(report: dict[str, Any]) -> str:
    return json.dumps(report, ensure_ascii=False, indent=2, default=str)


def write_report(report: dict[str, Any], out_dir: str | Path) -> list[Path]:
    """Write report.json, metrics.csv and questions.csv into ``out_dir``; returns the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = {"report.json": report_json(report), "metrics.csv": metrics_csv(report),
             "questions.csv": questions_csv(report)}
    paths = []
    for name, text in files.items():
        path = out / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths
