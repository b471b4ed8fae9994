"""F1–F7 labels and the variant compare view, drawn from recorded runs only (``rag.failures``, ``rag.compare``)."""
from __future__ import annotations

from typing import Sequence

import pandas as pd
import streamlit as st

from rag.failures import CODES, label_run
from rag.trace import Run
from rag_ui import widgets

LEVEL_ICON = {"observed": "●", "unchecked": "○"}  # plain glyphs: emoji fonts are often missing


def failure_rows(run: Run, labels: Sequence | None = None) -> list[dict]:
    """One table row per F-label of ``run`` (``labels``: its ``label_run`` result, when already computed)."""
    return [{"label": f"{LEVEL_ICON.get(f.level, '')} {f.code}", "failure": f.title, "level": f.level,
             "why": f.reason, "steps": ", ".join(str(n) for n in f.steps)}
            for f in (label_run(run) if labels is None else labels)]


def failure_block(run: Run, key: str = "failures", compact: bool = False) -> None:
    """The run's F-labels (seed 001's taxonomy) with their reasons and the steps they point at; ``compact``: one
    line per label instead of a table (narrow columns)."""
    st.markdown("**Failure labels · 실패 분류 (F1–F7, seed 001)**")
    if run.error:
        st.caption("The run stopped with an error, so no failure labels were computed.")
        return
    labels = label_run(run)
    rows = failure_rows(run, labels)
    if not rows:
        st.caption("No failure label: the trace shows none of F1–F7 · 기록상 실패 없음")
        return
    if compact:
        for f in labels:
            st.markdown(f"{LEVEL_ICON.get(f.level, '')} **{f.code}** {widgets.md_escape(f.title)} — "
                        f"{widgets.md_escape(f.reason)} _(step {', '.join(str(n) for n in f.steps)}; {f.level})_")
    else:
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key=key)
    st.caption("● observed in the trace · ○ unchecked: the variant has no check that would show it. "
               + " · ".join(f"{c} {t[1]}" for c, t in CODES.items()))


def compare_columns(runs: Sequence[Run], kb=None) -> None:
    """One column per run: label, path diagram, model calls / tokens / time / attempts, F-labels, answer, citations."""
    from rag.variants import registry

    if not runs:
        return
    cols = st.columns(len(runs))
    for col, run in zip(cols, runs):
        with col:
            st.markdown(f"#### {widgets.md_escape(registry.info(run.variant, 'label', run.variant))}")
            st.caption(f"`{run.variant}` · run {run.run_id} · min. model calls: "
                       f"{widgets.md_escape(registry.info(run.variant, 'min_calls', '?'))}")
            widgets.run_metrics(run, compact=True)
            widgets.diagram_block(run)
            failure_block(run, key=f"compare_failures_{run.variant}", compact=True)
            st.markdown("**Answer · 답변**")
            widgets.answer_block(run)
            widgets.citations_block(run, kb, key=f"compare_cite_{run.variant}")
