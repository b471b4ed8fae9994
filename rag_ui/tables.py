"""The tables of the knowledge base on the Documents page: columns, types, row count and a preview (``rag.tables``).

Tables come from .csv / .xlsx / .sqlite files; the ``sql`` tool answers aggregate questions over them with one
validated SELECT. Everything shown here is read from the table store; nothing is recomputed.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from rag.types import RagError


def schema_view(kb: Any) -> None:
    """A "Tables" section when the knowledge base holds tables: one row per table, then the chosen table's columns
    with their types and its first rows, and a delete button. Nothing is drawn when there are no tables."""
    try:
        tables = kb.tables.list()
    except RagError as exc:  # a busy or unreadable table store: say so, keep the rest of the page
        st.warning(f"The tables could not be read: {exc}")
        return
    if not tables:
        return
    import pandas as pd

    st.subheader("Tables · 표")
    st.caption("From .csv / .xlsx / .sqlite files, kept in an embedded DuckDB. Aggregate questions (counts, sums, "
               "averages, rankings) are answered from them with one validated, read-only SELECT (the sql tool).")
    st.dataframe([{"table": t.name, "file": t.source, "rows": t.n_rows, "columns": len(t.columns),
                   "encoding": t.encoding, "ingested (UTC)": t.ingested_at[:19].replace("T", " ")} for t in tables],
                 hide_index=True, width="stretch", key="tables_table")
    by_name = {t.name: t for t in tables}
    name = st.selectbox("Browse a table", list(by_name), key="browse_table",
                        format_func=lambda n: f"{n} ({by_name[n].n_rows} rows, {by_name[n].source})")
    info = by_name[name]
    left, right = st.columns([1, 2])
    left.caption("Schema · 스키마")
    left.dataframe(pd.DataFrame([{"column": c.name, "type": c.type} for c in info.columns]), hide_index=True,
                   width="stretch", key="table_schema")
    columns, rows = kb.tables.preview(name)
    right.caption(f"Preview · 미리 보기 (first {len(rows)} of {info.n_rows} rows)")
    right.dataframe(pd.DataFrame(rows, columns=columns), hide_index=True, width="stretch", key="table_preview")
    if st.button(f"Delete table {name}", key="delete_table"):
        kb.delete_table(name)
        st.toast(f"Deleted table {name}")
        st.rerun()
