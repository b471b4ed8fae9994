"""Two processes opening one knowledge base set its registry up one at a time (twenty-sixth session).

Seen in CI: two concurrent `rag ingest` into a new data directory, and one failed with "OperationalError: duplicate
column name: state" — both read the documents table's columns, both found the column missing, both added it. The
registry's set-up (and the run store's migrations) now run under SQLite's write lock (BEGIN IMMEDIATE): the second
process waits, then sees what the first one added. The interleaving is made deterministic here: another connection
holds the write lock over a registry of the old shape while the registry opens, then adds the column and commits.
"""
from __future__ import annotations

import sqlite3
import threading
import time

from rag.kb import _Registry
from rag.runstore import RunStore

OLD_DOCUMENTS = """CREATE TABLE documents (
    doc_id TEXT PRIMARY KEY, source TEXT NOT NULL, n_chunks INTEGER NOT NULL,
    n_chars INTEGER NOT NULL, n_entities INTEGER NOT NULL DEFAULT 0,
    n_relations INTEGER NOT NULL DEFAULT 0, embedder TEXT NOT NULL, ingested_at TEXT NOT NULL)"""


def _open_while_another_writer_migrates(path, opener, migrate_sql):
    """``opener()`` while another connection holds the write lock on ``path``, then runs ``migrate_sql`` and commits."""
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # the other process is setting the store up
    errors: list[BaseException] = []

    def open_it():
        try:
            opener()
        except BaseException as exc:  # noqa: BLE001 (reported by the assertion below)
            errors.append(exc)

    thread = threading.Thread(target=open_it)
    thread.start()
    time.sleep(0.5)  # the opener reaches the lock and waits
    for sql in migrate_sql:
        other.execute(sql)
    other.execute("COMMIT")
    other.close()
    thread.join(30)
    assert not thread.is_alive()
    return errors


def test_the_registry_waits_for_another_process_setting_it_up(tmp_path):
    path = tmp_path / "kb.sqlite3"
    with sqlite3.connect(path) as conn:  # a registry of the shape before the state / origin columns
        conn.execute(OLD_DOCUMENTS)
    errors = _open_while_another_writer_migrates(
        path, lambda: _Registry(path), ["ALTER TABLE documents ADD COLUMN state TEXT NOT NULL DEFAULT 'committed'"])
    assert not errors, errors
    with sqlite3.connect(path) as conn:
        columns = {r[1] for r in conn.execute("PRAGMA table_info(documents)")}
    assert {"state", "origin"} <= columns


def test_the_run_store_waits_for_another_process_migrating_it(tmp_path):
    RunStore(tmp_path)  # every migration applied once
    path = tmp_path / "runs.sqlite3"
    with sqlite3.connect(path) as conn:  # as if m002 had not been applied yet
        conn.execute("DELETE FROM _migrations WHERE name = 'm002_fork_lineage'")
        conn.execute("DROP INDEX runs_parent_run_id")
        conn.execute("ALTER TABLE runs DROP COLUMN fork_edit")
        conn.execute("ALTER TABLE runs DROP COLUMN parent_run_id")
    errors = _open_while_another_writer_migrates(path, lambda: RunStore(tmp_path), [
        "ALTER TABLE runs ADD COLUMN parent_run_id TEXT", "ALTER TABLE runs ADD COLUMN fork_edit TEXT",
        "CREATE INDEX runs_parent_run_id ON runs (parent_run_id)",
        "INSERT INTO _migrations (name, applied_at) VALUES ('m002_fork_lineage', 'now')"])
    assert not errors, errors
