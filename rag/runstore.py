"""The run store: every run's trace in SQLite at ``data_dir/runs.sqlite3``.

The schema is versioned by append-only migration functions (``m001_initial``,
``m002_...``), each recorded in the ``_migrations`` table and applied whenever the
database is opened. Never edit a migration that has shipped: add a new one.

A connection is opened per call, so one ``RunStore`` can be shared across threads
(Streamlit runs each session in its own thread).
"""
from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rag.trace import Run, now_iso

DB_NAME = "runs.sqlite3"
SUMMARY_COLUMNS = ("run_id", "created_at", "question", "variant", "route", "abstained", "partial", "stop_reason",
                   "llm_calls", "tokens", "wall_ms", "quality_scores", "answer", "parent_run_id", "fork_edit")


def m001_initial(db: sqlite3.Connection) -> None:
    db.execute(
        """
        CREATE TABLE runs (
            run_id TEXT PRIMARY KEY,
            created_at TEXT NOT NULL,
            question TEXT NOT NULL,
            variant TEXT NOT NULL,
            route TEXT,
            abstained INTEGER NOT NULL DEFAULT 0,
            partial INTEGER NOT NULL DEFAULT 0,
            stop_reason TEXT,
            llm_calls INTEGER NOT NULL DEFAULT 0,
            tokens INTEGER NOT NULL DEFAULT 0,
            wall_ms REAL NOT NULL DEFAULT 0,
            quality_scores TEXT NOT NULL DEFAULT '[]',
            answer TEXT NOT NULL DEFAULT '',
            trace_json TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX runs_created_at ON runs (created_at)")


def m002_fork_lineage(db: sqlite3.Connection) -> None:
    """What-if replay (rag.replay): a fork names its parent run and the edit it made."""
    db.execute("ALTER TABLE runs ADD COLUMN parent_run_id TEXT")
    db.execute("ALTER TABLE runs ADD COLUMN fork_edit TEXT")
    db.execute("CREATE INDEX runs_parent_run_id ON runs (parent_run_id)")


# Append only: (name, function). The name is what `_migrations` records.
MIGRATIONS: list[tuple[str, Callable[[sqlite3.Connection], None]]] = [
    ("m001_initial", m001_initial),
    ("m002_fork_lineage", m002_fork_lineage),
]


def migrate(db: sqlite3.Connection) -> list[str]:
    """Apply every migration not yet recorded; returns the names applied now. One transaction under the write lock
    (BEGIN IMMEDIATE): a second process opening the same store waits, then finds them recorded; they land whole or
    not at all."""
    applied = []
    with db:
        db.execute("BEGIN IMMEDIATE")
        db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
        done = {row[0] for row in db.execute("SELECT name FROM _migrations")}
        for name, function in MIGRATIONS:
            if name in done:
                continue
            function(db)
            db.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", (name, now_iso()))
            applied.append(name)
    return applied


class RunStore:
    """Save, list, load, delete and export runs. ``RunStore(settings.data_dir)``."""

    def __init__(self, data_dir: str | Path) -> None:
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.data_dir / DB_NAME
        with self._connect() as db:
            migrate(db)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=10)
        db.row_factory = sqlite3.Row
        try:
            yield db
        finally:
            db.close()

    def save(self, run: Run) -> str:
        """Insert or replace the run; returns its id."""
        data = run.to_dict()
        row = (run.run_id, run.created_at, run.question, run.variant, run.route, int(run.abstained),
               int(run.partial), run.stop_reason, run.llm_calls, run.tokens["total"], float(run.wall_ms),
               json.dumps(run.quality_scores), run.answer, json.dumps(data, ensure_ascii=False),
               run.replay.get("parent_run_id"), (run.replay.get("edit") or {}).get("text"))
        with self._connect() as db, db:
            db.execute(
                "INSERT OR REPLACE INTO runs (run_id, created_at, question, variant, route, abstained, partial,"
                " stop_reason, llm_calls, tokens, wall_ms, quality_scores, answer, trace_json, parent_run_id,"
                " fork_edit) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
        return run.run_id

    def get(self, run_id: str) -> Run | None:
        """The run with this id (or an unambiguous id prefix of at least 4 characters); None when there is none."""
        trace = self._trace_json(run_id)
        return None if trace is None else Run.from_dict(json.loads(trace))

    def export_json(self, run_id: str) -> str | None:
        """The run's full trace as pretty JSON text; None when there is no such run."""
        trace = self._trace_json(run_id)
        if trace is None:
            return None
        return json.dumps(json.loads(trace), ensure_ascii=False, indent=2)

    def _trace_json(self, run_id: str) -> str | None:
        with self._connect() as db:
            row = db.execute("SELECT trace_json FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            if row is None and len(run_id) >= 4:
                rows = db.execute("SELECT trace_json FROM runs WHERE run_id LIKE ? ESCAPE '\\' LIMIT 2",
                                  (_escape_like(run_id) + "%",)).fetchall()
                row = rows[0] if len(rows) == 1 else None
        return None if row is None else row["trace_json"]

    def list(self, limit: int = 100, search: str | None = None, variant: str | None = None) -> list[dict[str, Any]]:
        """Run summaries, newest first; ``search`` matches question or answer text, ``variant`` filters exactly."""
        where, params = [], []
        search = (search or "").strip()
        if search:
            where.append("(question LIKE ? ESCAPE '\\' OR answer LIKE ? ESCAPE '\\')")
            pattern = f"%{_escape_like(search)}%"
            params += [pattern, pattern]
        if variant:
            where.append("variant = ?")
            params.append(variant)
        sql = f"SELECT {', '.join(SUMMARY_COLUMNS)} FROM runs"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY created_at DESC, rowid DESC LIMIT ?"
        params.append(int(limit))
        with self._connect() as db:
            rows = db.execute(sql, params).fetchall()
        out = []
        for row in rows:
            item = dict(row)
            item["abstained"] = bool(item["abstained"])
            item["partial"] = bool(item["partial"])
            item["quality_scores"] = json.loads(item["quality_scores"] or "[]")
            out.append(item)
        return out

    def forks(self, run_id: str) -> list[dict[str, Any]]:
        """Summaries of the runs forked from ``run_id`` (what-if replay), newest first."""
        sql = f"SELECT {', '.join(SUMMARY_COLUMNS)} FROM runs WHERE parent_run_id = ? ORDER BY created_at DESC"
        with self._connect() as db:
            rows = db.execute(sql, (run_id,)).fetchall()
        return [dict(row) for row in rows]

    def count(self) -> int:
        with self._connect() as db:
            return int(db.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    def delete(self, run_id: str) -> bool:
        """Delete one run; True when it existed."""
        with self._connect() as db, db:
            cursor = db.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))
        return cursor.rowcount > 0


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
