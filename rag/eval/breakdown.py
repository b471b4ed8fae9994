"""Per-tag breakdown: the headline metrics over the questions that carry a tag (``"tags": [...]`` in the JSONL).

A question set may tag its questions (``cross-lingual``, ``en->ko``, ``cause``, ``procedure``, ``multi-hop``,
``trap`` ...); the breakdown says which kinds of question fail, which one overall figure hides.
"""
from __future__ import annotations

from typing import Any

from rag.eval.metrics import aggregate
from rag.eval.questions import QuestionSet

BREAKDOWN_METRICS: tuple[str, ...] = ("key_fact_hit_rate", "false_abstention_rate", "silent_failure_rate",
                                      "routing_accuracy")
_SHORT = {"key_fact_hit_rate": "hit", "false_abstention_rate": "f.abst", "silent_failure_rate": "silent",
          "routing_accuracy": "route"}


def question_tags(question_set: QuestionSet) -> dict[str, list[str]]:
    """{question id: its tags} for questions with a list of string tags; seed 002's ``question_kind`` (lookup,
    comparison, aggregate, recent) counts as the tag ``kind:<name>``, so the new kinds show in every report."""
    out: dict[str, list[str]] = {}
    for q in question_set.questions:
        tags = q.extra.get("tags")
        found = [t for t in tags if isinstance(t, str) and t.strip()] if isinstance(tags, list) else []
        kind = q.extra.get("question_kind")
        if isinstance(kind, str) and kind.strip():
            found.append(f"kind:{kind.strip()}")
        if found:
            out[q.id] = found
    return out


def by_tag(report: dict[str, Any], question_set: QuestionSet) -> dict[str, dict[str, Any]]:
    """{tag: {"n": questions, variant: {metric: value}}} in order of first appearance; {} when nothing is tagged."""
    tags = question_tags(question_set)
    order: list[str] = []
    for q in question_set.questions:
        for t in tags.get(q.id, []):
            if t not in order:
                order.append(t)
    out: dict[str, dict[str, Any]] = {}
    for tag in order:
        ids = {qid for qid, ts in tags.items() if tag in ts}
        entry: dict[str, Any] = {"n": len(ids)}
        for variant in report["variants"]:
            rows = [r for r in report["questions"] if r["variant"] == variant and r["id"] in ids]
            agg = aggregate(rows)
            entry[variant] = {k: agg.get(k) for k in BREAKDOWN_METRICS}
        out[tag] = entry
    return out


def format_by_tag(breakdown: dict[str, dict[str, Any]], variants: list[str]) -> str:
    """A text table: one row per tag, hit / false abstention / silent / routing per variant ('-': does not apply)."""
    if not breakdown:
        return ""
    header = ["tag", "n"] + [f"{v} {_SHORT[m]}" for v in variants for m in BREAKDOWN_METRICS]
    rows = []
    for tag, entry in breakdown.items():
        cells = [tag, str(entry["n"])]
        for v in variants:
            for m in BREAKDOWN_METRICS:
                val = (entry.get(v) or {}).get(m)
                cells.append("-" if val is None else f"{val:.2f}")
        rows.append(cells)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join(["by tag (hit = key facts on covered, f.abst = flagged on covered, silent, route = routing)",
                      line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)])
