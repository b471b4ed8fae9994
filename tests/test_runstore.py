"""The SQLite run store: migrations, exact columns, save/get/list/delete/export round trips."""
from __future__ import annotations

import json
import sqlite3

import pytest

from rag import runstore
from rag.config import Settings
from rag.runstore import RunStore
from rag.variants import run_question
from tests.support.scripted import ListTool, ScriptedEngine, ToolsKB, make_doc

EXPECTED_COLUMNS = ["run_id", "created_at", "question", "variant", "route", "abstained", "partial", "stop_reason",
                    "llm_calls", "tokens", "wall_ms", "quality_scores", "answer", "trace_json", "parent_run_id",
                    "fork_edit"]


def _run(question: str, data_dir, variant: str = "agentic", evaluate=0.9):
    docs = [make_doc("a:0", "Alpha was founded in 2019."), make_doc("a:1", "Alpha is in Seoul.")]
    kb = ToolsKB({"vector": ListTool("vector", docs), "graph": ListTool("graph", [make_doc("g:1", "Alpha -founded_by-> Kim", tool="graph")]),
                  "web": ListTool("web", available=(False, "no key"))})
    settings = Settings.from_env(data_dir_override=data_dir)
    return run_question(question, kb, ScriptedEngine(evaluate=evaluate), settings, variant=variant)


def _columns(path) -> list[str]:
    with sqlite3.connect(path) as db:
        return [row[1] for row in db.execute("PRAGMA table_info(runs)")]


def test_exact_columns_and_recorded_migrations(data_dir):
    store = RunStore(data_dir)
    assert store.path == data_dir / "runs.sqlite3"
    assert _columns(store.path) == EXPECTED_COLUMNS
    with sqlite3.connect(store.path) as db:
        names = [row[0] for row in db.execute("SELECT name FROM _migrations ORDER BY name")]
    assert names == [name for name, _ in runstore.MIGRATIONS] == ["m001_initial", "m002_fork_lineage"]


def test_reopening_applies_nothing_again_and_new_migrations_apply_once(data_dir, monkeypatch):
    RunStore(data_dir)
    with sqlite3.connect(data_dir / "runs.sqlite3") as db:
        assert runstore.migrate(db) == []

    def m999_add_note(db):
        db.execute("ALTER TABLE runs ADD COLUMN note TEXT")

    monkeypatch.setattr(runstore, "MIGRATIONS", [*runstore.MIGRATIONS, ("m999_add_note", m999_add_note)])
    RunStore(data_dir)
    RunStore(data_dir)  # a second open must not try to add the column again
    assert _columns(data_dir / "runs.sqlite3") == [*EXPECTED_COLUMNS, "note"]


def test_save_get_round_trip_is_lossless(data_dir):
    store = RunStore(data_dir)
    run = _run("When was Alpha founded?", data_dir)
    store.save(run)
    loaded = store.get(run.run_id)
    assert loaded is not None
    assert loaded.to_dict() == run.to_dict()
    assert loaded.steps[2].documents[0].grade == "correct"
    assert store.get(run.run_id[:6]).run_id == run.run_id  # unambiguous prefix
    assert store.get("nope-not-there") is None


def test_summary_row_matches_the_run(data_dir):
    store = RunStore(data_dir)
    run = _run("When was Alpha founded?", data_dir, evaluate=[0.1, 0.2])
    store.save(run)
    [row] = store.list()
    assert row["run_id"] == run.run_id
    assert row["route"] == "vector"
    assert row["partial"] is True and row["stop_reason"] == "budget_exhausted"
    assert row["llm_calls"] == run.llm_calls > 0
    assert row["tokens"] == run.tokens["total"]
    assert row["quality_scores"] == run.quality_scores == [0.1, 0.2]
    assert row["answer"] == run.answer
    assert "trace_json" not in row


def test_list_is_newest_first_and_filters(data_dir):
    store = RunStore(data_dir)
    first = _run("When was Alpha founded?", data_dir)
    second = _run("Where is Alpha?", data_dir, variant="naive")
    third = _run("Who leads 50%_growth?", data_dir)
    for run in (first, second, third):
        store.save(run)
    assert [r["run_id"] for r in store.list()] == [third.run_id, second.run_id, first.run_id]
    assert [r["run_id"] for r in store.list(limit=1)] == [third.run_id]
    assert [r["run_id"] for r in store.list(variant="naive")] == [second.run_id]
    assert [r["run_id"] for r in store.list(search="where is")] == [second.run_id]
    assert [r["run_id"] for r in store.list(search="50%_")] == [third.run_id]  # LIKE wildcards are literal
    assert store.list(search="zzz") == []
    assert store.count() == 3


def test_delete_and_export(data_dir):
    store = RunStore(data_dir)
    run = _run("When was Alpha founded?", data_dir)
    store.save(run)
    exported = json.loads(store.export_json(run.run_id))
    assert exported["run_id"] == run.run_id
    assert exported["totals"]["llm_calls"] == run.llm_calls
    assert exported["settings"]["openai_api_key"] is None
    assert store.delete(run.run_id) is True
    assert store.delete(run.run_id) is False
    assert store.get(run.run_id) is None
    assert store.export_json(run.run_id) is None


def test_no_secret_lands_in_a_stored_trace(data_dir, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value-123")
    monkeypatch.setenv("RAG_ENGINE", "offline")
    store = RunStore(data_dir)
    run = _run("When was Alpha founded?", data_dir)
    store.save(run)
    with sqlite3.connect(store.path) as db:
        dump = "\n".join(db.iterdump())
    assert "sk-secret-value-123" not in dump
    assert store.get(run.run_id).settings["openai_api_key"] == "set"


@pytest.mark.parametrize("bad", ["", "   "])
def test_empty_search_means_no_filter(data_dir, bad):
    store = RunStore(data_dir)
    store.save(_run("When was Alpha founded?", data_dir))
    assert len(store.list(search=bad)) == 1
