"""Hop summaries of a react run on the Ask page: what each hop kept, and the context size with and without summaries.

Reads only the recorded steps (``observe`` and ``retrieve_target`` outputs of ``rag.variants.react``); nothing is
recomputed. Other variants record no hop summaries, and then nothing is drawn.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from rag.trace import Run

HOP_NODES = ("observe", "retrieve_target")


def hop_rows(run: Run) -> list[dict[str, Any]]:
    """One row per hop: number, tool, target, query, summary lines, SQL, context tokens, what came next."""
    rows = []
    for step in run.steps:
        out = step.output or {}
        if step.node not in HOP_NODES or "summary" not in out:
            continue
        rows.append({
            "hop": step.attempt, "tool": step.inputs.get("strategy", ""), "target": step.inputs.get("target", ""),
            "query": step.inputs.get("query", ""), "summary": "\n".join(out.get("summary") or []),
            "sql": out.get("sql") or "",
            "context tokens (summaries)": out.get("context_tokens", out.get("summary_tokens")),
            "without summaries": out.get("context_tokens_without_summaries", out.get("hop_raw_tokens")),
            "next": step.decision, "stop": out.get("stop_reason") or ""})
    return rows


def hop_block(run: Run) -> None:
    """The hop table of a react run (nothing for other variants)."""
    rows = hop_rows(run)
    if not rows:
        return
    st.subheader("Hops · 홉 요약")
    st.caption("After each hop only 2–3 lines of new findings stay (with source ids); the raw chunks are dropped and "
               "the answer re-fetches the cited ones. Context tokens: what the loop carries with the summaries, and "
               "what it would carry with every raw chunk kept (seed 002: context dilution).")
    st.dataframe(rows, hide_index=True, width="stretch", key="hops_table")
