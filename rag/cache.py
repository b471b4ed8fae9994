"""Semantic answer cache (seed 003): a repeated question is answered from an earlier run, with no model call.

Key: the question's embedding (a hit is a cached question within ``settings.cache_similarity`` cosine, with exactly
the same numbers: "2022년" and "2023년" embed 0.98 alike but ask different things), the
variant, every setting that can change an answer (all of ``Settings.public()`` except the few listed in
``NOT_ANSWER_SETTINGS``: a new setting counts as answer-changing until someone says otherwise), and the knowledge
base's revision (``KnowledgeBase.revision``), which changes on every ingest, delete and reset. An entry of an older
revision is never served and is dropped at the next lookup: after a document changes, every answer is computed
again (an answer may rest on a document that is gone, or miss one that arrived).

A hit is a new ``Run`` marked ``run.cache = {"hit": True, "original_run_id", "similarity", "cached_question",
"kb_revision"}``: the original's answer, citations, route and attempts, no steps, 0 model calls. Runs that ended
in an error or at the deadline are never cached.

    from rag.cache import ask
    run = ask(question, kb=kb, engine=engine, settings=settings, variant="agentic", store=store, bypass=False)

Entries live in ``data_dir/answer_cache.sqlite3`` (one short connection per call: thread-safe).
"""
from __future__ import annotations

import hashlib
import json
import math
import re
import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from rag.config import Settings
from rag.trace import Run, now_iso

if TYPE_CHECKING:
    from rag.runstore import RunStore
    from rag.types import DecisionEngine
    from rag.variants.base import OnStep

CACHE_FILE = "answer_cache.sqlite3"
# Settings that cannot change an answer (paths, limits on waiting, how grading is spread over requests, the cache's
# own switches, prices, connection details of the same stores). Everything else is part of the key.
NOT_ANSWER_SETTINGS = frozenset({
    "data_dir", "llm_timeout_s", "llm_retries", "run_deadline_s", "max_question_chars", "llm_grading",
    "answer_cache", "cache_similarity", "llm_prices", "chroma_port", "chroma_token", "neo4j_user", "neo4j_password",
    "openai_api_key",
})
UNCACHEABLE_STOPS = frozenset({"error", "deadline"})


def settings_key(settings: Settings, variant: str) -> str:
    """A short hash of the variant and every answer-changing setting."""
    public = {k: v for k, v in settings.public().items() if k not in NOT_ANSWER_SETTINGS}
    text = json.dumps({"variant": variant, "settings": public}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def kb_revision(kb: Any) -> int:
    """The knowledge base's revision (``kb.revision()``, or an attribute of that name)."""
    revision = getattr(kb, "revision", 0)
    return int(revision() if callable(revision) else revision)


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def numbers_in(question: str) -> list[str]:
    """The numbers of a question, in order, thousands separators dropped: they must match for a hit."""
    return [n.replace(",", "") for n in _NUMBER.findall(question)]


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


@dataclass
class CacheHit:
    run: Run  # the original run, as stored
    similarity: float
    cached_question: str
    kb_revision: int


class AnswerCache:
    """Entries of one data directory."""

    def __init__(self, data_dir: str | Path) -> None:
        self.path = Path(data_dir) / CACHE_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as db, db:
            db.execute("""CREATE TABLE IF NOT EXISTS answers (
                id INTEGER PRIMARY KEY, settings_key TEXT NOT NULL, variant TEXT NOT NULL,
                kb_revision INTEGER NOT NULL, question TEXT NOT NULL, embedding TEXT NOT NULL,
                run_id TEXT NOT NULL, run_json TEXT NOT NULL, created_at TEXT NOT NULL)""")
            db.execute("CREATE INDEX IF NOT EXISTS answers_key ON answers(settings_key, kb_revision)")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    def lookup(self, embedding: list[float], variant: str, settings: Settings, revision: int,
               numbers: list[str] | None = None) -> CacheHit | None:
        """The closest entry at or above ``settings.cache_similarity`` for this key and revision (and with these
        ``numbers``, when given); entries of other revisions are dropped first (the documents changed since)."""
        key = settings_key(settings, variant)
        with closing(self._connect()) as db, db:
            db.execute("DELETE FROM answers WHERE kb_revision != ?", (revision,))
            rows = db.execute("SELECT question, embedding, run_json FROM answers WHERE settings_key = ? AND "
                              "kb_revision = ?", (key, revision)).fetchall()
        best: tuple[float, str, str] | None = None
        for question, vector, run_json in rows:
            if numbers is not None and numbers_in(question) != numbers:
                continue
            similarity = _cosine(embedding, json.loads(vector))
            if similarity >= settings.cache_similarity and (best is None or similarity > best[0]):
                best = (similarity, question, run_json)
        if best is None:
            return None
        return CacheHit(Run.from_dict(json.loads(best[2])), round(best[0], 4), best[1], revision)

    def put(self, run: Run, embedding: list[float], settings: Settings, revision: int) -> bool:
        """Remember a computed run (not a hit, not an error); returns whether it was stored."""
        if run.cache.get("hit") or run.error or run.stop_reason in UNCACHEABLE_STOPS:
            return False
        key = settings_key(settings, run.variant)
        with closing(self._connect()) as db, db:
            db.execute("DELETE FROM answers WHERE settings_key = ? AND question = ?", (key, run.question))
            db.execute("INSERT INTO answers (settings_key, variant, kb_revision, question, embedding, run_id, "
                       "run_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (key, run.variant, revision, run.question, json.dumps(embedding), run.run_id,
                        json.dumps(run.to_dict(), ensure_ascii=False), now_iso()))
        return True

    def clear(self) -> int:
        with closing(self._connect()) as db, db:
            return db.execute("DELETE FROM answers").rowcount

    def count(self) -> int:
        with closing(self._connect()) as db:
            return int(db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])


def hit_run(hit: CacheHit, question: str, settings: Settings, wall_ms: float) -> Run:
    """The run a cache hit returns: the original's answer, no steps, 0 model calls, a link to the original."""
    original = hit.run
    run = Run(question=question, variant=original.variant, settings=settings.public(), engine=dict(original.engine))
    run.route = original.route
    run.attempts = list(original.attempts)
    run.answer = original.answer
    run.citations = list(original.citations)
    run.abstained, run.partial = original.abstained, original.partial
    run.stop_reason = original.stop_reason
    run.generator_context = original.generator_context
    run.generator_prompt = list(original.generator_prompt)
    run.wall_ms = wall_ms
    run.cache = {"hit": True, "original_run_id": original.run_id, "similarity": hit.similarity,
                 "cached_question": hit.cached_question, "kb_revision": hit.kb_revision}
    return run


def ask(question: str, kb: Any, engine: "DecisionEngine", settings: Settings, variant: str = "agentic",
        on_step: "OnStep | None" = None, store: "RunStore | None" = None, bypass: bool = False,
        embed: Callable[[str], list[float]] | None = None) -> Run:
    """``run_question`` behind the answer cache (when ``settings.answer_cache`` and the engine is not the offline
    one: its runs make no model call and re-running them shows the full trace). ``bypass`` computes a fresh
    answer (and refreshes the entry). A hit is saved to ``store`` like any run. ``embed`` defaults to the
    knowledge base's embedder (``kb.embedder.embed_query``)."""
    from rag.variants import check_question_length, get_variant, run_question

    if not settings.answer_cache or settings.engine == "offline":  # offline: no model call to save, rules re-run
        return run_question(question, kb=kb, engine=engine, settings=settings, variant=variant, on_step=on_step,
                            store=store)
    get_variant(variant)  # an unknown variant or bad question fails here as in run_question, before any work
    question = question.strip()
    if question:
        check_question_length(question, settings)
    t0 = time.perf_counter()
    cache = AnswerCache(settings.data_dir)
    embedding = (embed or kb.embedder.embed_query)(question) if question else []
    revision = kb_revision(kb)
    if not bypass and question:
        hit = cache.lookup(embedding, variant, settings, revision, numbers_in(question))
        if hit is not None:
            run = hit_run(hit, question, settings, (time.perf_counter() - t0) * 1000.0)
            if store is not None:
                store.save(run)
            return run
    run = run_question(question, kb=kb, engine=engine, settings=settings, variant=variant, on_step=on_step,
                       store=store)
    if kb_revision(kb) == revision:  # documents changed during the run: its answer is of no revision
        cache.put(run, embedding, settings, revision)
    return run


__all__ = ["AnswerCache", "CACHE_FILE", "CacheHit", "NOT_ANSWER_SETTINGS", "ask", "hit_run", "kb_revision",
           "numbers_in", "settings_key"]
