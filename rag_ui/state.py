"""Session-state keys of the app, initialised in one place.

Every page calls ``init_state()`` first; keys are module constants so pages never scatter strings.

Opening a run in the trace inspector from any page (e.g. the Evaluate page)::

    from rag_ui.state import open_in_inspector
    open_in_inspector(run_id)          # sets INSPECT_RUN_ID and calls st.switch_page("app_pages/inspector.py")

or by hand: ``st.session_state["inspect_run_id"] = run_id; st.switch_page("app_pages/inspector.py")``.
The inspector also accepts a link with ``?run=RUN_ID`` (``st.query_params``), e.g. ``/inspector?run=3f2a9c01b7de``.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

INSPECTOR_PAGE = "app_pages/inspector.py"

# app-wide
TEACHING_NOTES = "teaching_notes"  # bool: sidebar toggle, explain each node in Korean + English
# ask page
QUESTION = "question"  # the question box (a widget key; a sample-question click writes into it)
ASK_PENDING = "ask_pending"  # True: run the question in the box on this rerun (set by a sample-question click)
ASK_VARIANT = "ask_variant"
ASK_THRESHOLD = "ask_threshold"
ASK_MAX_ATTEMPTS = "ask_max_attempts"
ASK_TOP_K = "ask_top_k"
ASK_WITH_NAIVE = "ask_with_naive"  # also run naive RAG on the same question, side by side
ASK_USE_CACHE = "ask_use_cache"  # serve a repeated question from the answer cache (rag.cache; llm engine only)
ASK_RESULT = "ask_result"  # {"run": Run, "naive": Run | None} of the last question asked in this session
# documents page
INGEST_RESULTS = "ingest_results"  # list of row dicts of the last upload, shown until the next one
# trace inspector
INSPECT_RUN_ID = "inspect_run_id"  # the run the inspector shows; set it and switch page to open a run
COMPARE_RUN_ID = "compare_run_id"  # the second run of the side-by-side comparison
# knowledge graph page
GRAPH_ENTITY = "graph_entity"

MAX_ATTEMPTS_LIMIT = 10  # upper ends of the Ask page's settings
TOP_K_LIMIT = 50

_DEFAULTS: dict[str, Any] = {
    TEACHING_NOTES: False,
    QUESTION: "",
    ASK_PENDING: False,
    ASK_WITH_NAIVE: True,
    ASK_USE_CACHE: True,
    ASK_RESULT: None,
    INGEST_RESULTS: None,
    INSPECT_RUN_ID: None,
    COMPARE_RUN_ID: None,
    GRAPH_ENTITY: None,
}


def init_state() -> None:
    """Set every key that is not set yet; the agent settings start from ``Settings.from_env()``."""
    for key, value in _DEFAULTS.items():
        st.session_state.setdefault(key, value)
    if ASK_THRESHOLD not in st.session_state:
        from rag.config import Settings

        s = Settings.from_env()
        st.session_state.setdefault(ASK_VARIANT, "agentic")
        st.session_state.setdefault(ASK_THRESHOLD, float(s.threshold))
        # clamped to the Ask page's widget ranges, so an unusual RAG_* environment value cannot break the page
        st.session_state.setdefault(ASK_MAX_ATTEMPTS, min(int(s.max_attempts), MAX_ATTEMPTS_LIMIT))
        st.session_state.setdefault(ASK_TOP_K, min(int(s.top_k), TOP_K_LIMIT))


# TEACHING_NOTES too: st.switch_page (e.g. "Open this run in the trace inspector") turned the sidebar toggle off
PERSISTENT_WIDGETS = (TEACHING_NOTES, QUESTION, ASK_VARIANT, ASK_THRESHOLD, ASK_MAX_ATTEMPTS, ASK_TOP_K,
                      ASK_WITH_NAIVE, ASK_USE_CACHE)


def keep_widget_values(keys: tuple[str, ...] = PERSISTENT_WIDGETS) -> None:
    """Keep widget values while the user visits other pages (Streamlit drops keys of widgets not drawn in a run).

    Called by the app frame on every run; the widgets themselves take their value from the key only."""
    for key in keys:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def open_in_inspector(run_id: str) -> None:
    """Show ``run_id`` in the trace inspector (switches page; call it from a button, not from a callback)."""
    st.session_state[INSPECT_RUN_ID] = run_id
    st.switch_page(INSPECTOR_PAGE)
