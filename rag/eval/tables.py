"""Report -> plain rows for display (the Evaluate page and the CLI draw these; no Streamlit here)."""
from __future__ import annotations

from typing import Any

from rag.eval.metrics import METRIC_LABELS, OUTCOMES, quality_outcome

__all__ = ["METRIC_LABELS", "RATE_METRICS", "COST_METRICS", "metrics_rows", "long_rows", "confusion_rows",
           "question_rows", "quality_rows", "OUTCOMES"]

RATE_METRICS: tuple[str, ...] = (
    "routing_accuracy", "key_fact_hit_rate", "facts_in_context_rate", "abstention_rate", "silent_failure_rate",
    "silent_failure_rate_uncovered", "context_precision", "context_recall", "re_route_rate",
)
COST_METRICS: tuple[str, ...] = ("llm_calls_mean", "attempts_mean", "wall_ms_mean", "wall_ms_p95")
QUESTION_VIEW: tuple[str, ...] = (
    "id", "variant", "kind", "expected_route", "route", "flagged", "hit", "silent_failure", "context_precision",
    "context_recall", "attempts", "llm_calls", "wall_ms", "run_id", "question", "answer",
)


def metrics_rows(report: dict[str, Any], keys: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    """One row per metric: {"metric": label, "key": key, <variant>: value, ...}; None = does not apply."""
    variants = report["variants"]
    keys = keys or tuple(METRIC_LABELS) + tuple(
        k for k in ("ragas_faithfulness", "ragas_answer_relevancy") if any(k in m for m in variants.values()))
    return [{"metric": METRIC_LABELS.get(k, f"{k} (LLM-judged)"), "key": k,
             **{name: m.get(k) for name, m in variants.items()}} for k in keys]


def long_rows(report: dict[str, Any], keys: tuple[str, ...]) -> list[dict[str, Any]]:
    """{"metric", "variant", "value"} rows for grouped bar charts; metrics that do not apply are left out."""
    out = []
    for k in keys:
        for name, m in report["variants"].items():
            if m.get(k) is not None:
                out.append({"metric": METRIC_LABELS.get(k, k), "variant": name, "value": m[k]})
    return out


def confusion_rows(report: dict[str, Any], variant: str) -> list[dict[str, Any]]:
    """Routing confusion of one variant: one row per expected route, one column per actual route."""
    matrix = report.get("confusion", {}).get(variant, {})
    actual = sorted({a for row in matrix.values() for a in row})
    return [{"expected": exp, **{a: matrix[exp].get(a, 0) for a in actual}} for exp in sorted(matrix)]


def question_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [{k: r.get(k) for k in QUESTION_VIEW} for r in report["questions"]]


def quality_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per scored run (``metrics.quality_outcome``): {"variant", "id", "quality", "outcome", "bin",
    "bin_end"} (the 0.05-wide bin of the score), for the chart of quality scores against outcomes beside the
    threshold. Runs that record no quality (naive RAG, direct answers) and errored runs are left out."""
    out = []
    for r in report["questions"]:
        outcome = quality_outcome(r)
        if outcome is None:
            continue
        low = min(0.95, int(round(float(r["quality"]) * 20, 6)) / 20)  # 0.05-wide bins, 1.0 in the last
        out.append({"variant": r["variant"], "id": r["id"], "quality": r["quality"], "outcome": outcome,
                    "bin": round(low, 2), "bin_end": round(low + 0.05, 2)})
    return out
