"""The Ask page's hop table for a react run (rag_ui/hops.py): each hop's summary and context size, from the trace."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest


def script() -> None:
    import streamlit as st

    from rag.config import Settings
    from rag.variants import run_question
    from rag_ui.hops import hop_block
    from tests.support.scripted import ListTool, ScriptedEngine, ToolsKB, make_doc

    calls = iter(range(100))
    kb = ToolsKB({"vector": ListTool("vector", lambda q: [make_doc(f"d{next(calls)}", "Alpha was founded by Kim in "
                                                                    "2019. It is based in Busan. " * 5)])})
    engine = ScriptedEngine(classify="vector", grade=("ambiguous", 0.5), evaluate=0.2, rewrite="other query")
    run = run_question("Who founded Alpha?", kb, engine, Settings.from_env(hop_limit_lookup=2), variant="react")
    st.session_state["n_hops"] = len(run.attempts)
    hop_block(run)
    naive = run_question("Who founded Alpha?", kb, engine, Settings.from_env(), variant="naive")
    hop_block(naive)  # draws nothing: naive records no hop summaries


def test_hop_table_shows_each_hops_summary_and_context_sizes():
    at = AppTest.from_function(script, default_timeout=120).run()
    assert not at.exception
    assert [s.value for s in at.subheader] == ["Hops · 홉 요약"]
    [table] = [d.value for d in at.dataframe]
    assert list(table["hop"]) == [1, 2] == list(range(1, at.session_state["n_hops"] + 1))
    assert all(s.endswith("]") for s in table["summary"])
    assert (table["without summaries"] > table["context tokens (summaries)"]).all()
    assert list(table["next"]) == ["rewrite_query", "partial_answer"]
