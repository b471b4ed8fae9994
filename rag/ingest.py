"""The write order of the knowledge base: one sequence for ingest, restore, delete and repair.

A document's parts live in stores that cannot share a transaction (the registry in SQLite, chunks in Chroma,
BM25 tokens in SQLite, facts in graph.json or Neo4j). So every change is written in an order a crash at any
point can be repaired from::

    ingest   lock → intent (registry row, state "pending") → vectors + tokens → graph → commit (state
             "committed"; an older version of the same file → "deleting") → drop the older version → unlock
    delete   lock → mark "deleting" → vectors + tokens → graph → remove the row → unlock

Readers see committed documents only (``KnowledgeBase.documents``, and retrieval filters on committed doc ids),
so a crash before the commit leaves nothing visible, and one after it leaves the new version complete. A row
still "pending" or "deleting" when the lock is free belongs to a process that died: ``repair`` removes its
parts from every store (and finishes a delete). ``repair(full=True)`` (``rag repair``) also sweeps every store
for parts of documents the registry does not hold at all.

One writer per data directory: ``WriterLock`` (an ``fcntl`` lock on ``data_dir/ingest.lock``) is held for the
writes; the parsing, embedding and extraction of a file happen before it, so two ingests still overlap their
slow parts. A second writer waits up to ``RAG_INGEST_LOCK_WAIT_S`` seconds (default 300), then gives up with
a message naming the other process.

Fault injection: ``RAG_FAULT_AT=<boundary>`` kills the process (SIGKILL, as ``kill -9``) at that point of the
order; the fault suite (tests/test_integrity_crash.py) uses it to crash at every boundary in ``BOUNDARIES``.
"""
from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from rag.graphstore.base import entity_key
from rag.loaders import split_text
from rag.types import Chunk, Entity, IngestError, ProgressCallback, RagError, Relation

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no flock; writers are then serialised within one process only
    fcntl = None  # type: ignore[assignment]

if TYPE_CHECKING:  # pragma: no cover
    from rag.kb import KnowledgeBase

LOCK_FILE = "ingest.lock"
LOCK_WAIT_ENV = "RAG_INGEST_LOCK_WAIT_S"
DEFAULT_LOCK_WAIT_S = 300.0
FAULT_ENV = "RAG_FAULT_AT"
# Every point of the write order where a crash leaves the stores in a different state (see the module doc).
BOUNDARIES = ("ingest:intent", "ingest:vectors", "ingest:sentences", "ingest:graph", "ingest:commit",
              "ingest:drop-old", "delete:mark", "delete:vectors", "delete:sentences", "delete:graph")
PARTS = ("vectors", "sentences", "graph")  # a document's parts, in write order
EMBED_BATCH = 32


def fault_point(boundary: str) -> None:
    """Die here, like ``kill -9``, when ``RAG_FAULT_AT`` names this boundary (tests only)."""
    if os.environ.get(FAULT_ENV) == boundary:
        os.kill(os.getpid(), signal.SIGKILL)


# ---- one writer per data directory ------------------------------------------------------------------------------

class WriterBusy(RagError):
    """Another process holds the data directory's writer lock."""


class WriterLock:
    """An exclusive ``flock`` on ``data_dir/ingest.lock``, re-entrant within this process.

    ``flock`` is released by the kernel when its holder dies, so a crashed ingest never leaves it held; the pid
    written into the file only names the holder in the message of a process that waits for it."""

    _local: dict[str, tuple[threading.RLock, list[Any]]] = {}
    _local_guard = threading.Lock()

    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / LOCK_FILE
        with WriterLock._local_guard:
            self._thread_lock, self._state = WriterLock._local.setdefault(
                str(self.path), (threading.RLock(), [None, 0]))  # [fd, depth]

    def holder(self) -> str:
        try:
            pid = self.path.read_text(encoding="utf-8").strip()
        except OSError:
            return "unknown"
        return pid or "unknown"

    def acquire(self, wait_s: float | None = None, what: str = "ingest") -> None:
        if wait_s is None:
            wait_s = float(os.environ.get(LOCK_WAIT_ENV) or DEFAULT_LOCK_WAIT_S)
        got = self._thread_lock.acquire(timeout=wait_s) if wait_s > 0 else self._thread_lock.acquire(blocking=False)
        if not got:
            raise WriterBusy(f"another {what} is running in this data directory (this process); try again later.")
        try:
            if self._state[1] == 0:
                self._state[0] = self._flock(wait_s, what)
            self._state[1] += 1
        except BaseException:
            self._thread_lock.release()
            raise

    def _flock(self, wait_s: float, what: str) -> int:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + wait_s
        while fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = self.holder()
                    os.close(fd)
                    raise WriterBusy(
                        f"another ingest is running in this data directory (pid {holder}); waited {wait_s:.0f} s. "
                        f"Try again when it has finished (or raise {LOCK_WAIT_ENV}).") from None
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        return fd

    def try_acquire(self) -> bool:
        """Take the lock only if it is free now (used by the repair at start-up)."""
        try:
            self.acquire(wait_s=0.0)
        except WriterBusy:
            return False
        return True

    def release(self) -> None:
        self._state[1] -= 1
        if self._state[1] == 0:
            fd, self._state[0] = self._state[0], None
            try:
                os.ftruncate(fd, 0)
            finally:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)
        self._thread_lock.release()

    def __enter__(self) -> "WriterLock":
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


# ---- what is computed before any write ------------------------------------------------------------------------

@dataclass
class Prepared:
    """A document ready to be written: its chunks, their vectors and its facts (only the parts to write)."""

    doc_id: str
    source: str
    n_chars: int
    chunks: list[Chunk]
    vectors: list[list[float]] = field(default_factory=list)  # empty when the vectors are not written
    entities: list[Entity] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    parts: tuple[str, ...] = ("vectors", "graph")
    # rows for rag.sentences.SentenceStore.write (chunk id, doc id, text, units, vectors), when computed at ingest
    sentences: list[Any] = field(default_factory=list)

    def rename(self, source: str) -> None:
        """The name it is registered under (decided under the writer lock: it may be disambiguated)."""
        self.source = source
        for c in self.chunks:
            c.source = source
        for r in self.relations:
            r.source_file = source


def prepare(kb: "KnowledgeBase", doc_id: str, source: str, text: str, progress: ProgressCallback,
            parts: tuple[str, ...] = ("vectors", "graph"), chunks: list[Chunk] | None = None) -> Prepared:
    """Chunk, embed and extract — everything slow, before the writer lock. ``parts``: what will be written
    ("vectors" needs embeddings, "graph" needs extraction); ``chunks``: reuse these (a restore of the graph)."""
    from rag import extract as rule_extract

    progress(source, "chunk", 0.0)
    if chunks is None:
        pieces = split_text(text, kb.settings.chunk_size, kb.settings.chunk_overlap)
        if not pieces:
            raise IngestError(f"{source} contains no text to index.")
        chunks = [Chunk(doc_id=doc_id, source=source, index=i, text=t) for i, t in enumerate(pieces)]
    progress(source, "chunk", 1.0)

    if "graph" in parts and (kb.engine is None or getattr(kb.engine, "name", "") == "offline"):
        rule_extract.warm_up()  # load kiwipiepy in the background while the embedder runs
    vectors: list[list[float]] = []
    sentence_rows: list[Any] = []
    progress(source, "embed", 0.0)
    from rag.sentences import start_states

    # the heading each chunk starts under, read once: the sentence units and relation extraction both use it
    states = start_states([c.text for c in chunks])
    if "vectors" in parts:
        from rag.sentences import embed_chunks  # sentence vectors; each chunk's vector is pooled from them

        embedder = kb.embedder
        for start in range(0, len(chunks), EMBED_BATCH):
            batch_vectors, rows = embed_chunks(embedder, chunks[start : start + EMBED_BATCH],
                                               states=states[start : start + EMBED_BATCH])
            vectors.extend(batch_vectors)
            sentence_rows.extend(rows)
            progress(source, "embed", min(1.0, (start + EMBED_BATCH) / len(chunks)))
    progress(source, "embed", 1.0)

    entities: dict[str, Entity] = {}
    relations: list[Relation] = []
    progress(source, "entities", 0.0)
    if "graph" in parts:
        from rag.extract.tables import carried_header
        from rag.sentences import carried_heading

        extract = kb.engine.extract if kb.engine is not None else rule_extract.extract
        headings = carried_heading([c.text for c in chunks], states)
        for i, chunk in enumerate(chunks):
            # a chunk that starts inside a table is read with the table's header (what its columns mean)
            header = carried_header(chunks[i - 1].text) if i else ""
            text = f"{header}\n{chunk.text}" if header and chunk.text.lstrip().startswith("|") else chunk.text
            if headings[i]:
                # … and one that starts inside a section with the section's heading: "Its crash panel uses
                # Blackbox" at the top of a chunk under "## Lighthouse — live-ops dashboard" is Lighthouse's
                text = f"{headings[i]}\n\n{text}"
            found = extract(text, doc_id, chunk.chunk_id, source)
            for e in found.entities:
                entities.setdefault(entity_key(e.name), e)
            relations.extend(found.relations)
            progress(source, "entities", (i + 1) / len(chunks))
        if kb.engine is None or getattr(kb.engine, "name", "") == "offline":
            from rag.extract.leaders import page_leader_relations

            # a people page's leaders lead the organisation its title names, in the first chunk only
            for relation in page_leader_relations(chunks, entities, source):
                relations.append(relation)
                person = relation.source if relation.predicate == "leads" else relation.target
                entities.setdefault(entity_key(person), Entity(name=person, type="person"))
    progress(source, "entities", 1.0)
    return Prepared(doc_id=doc_id, source=source, n_chars=len(text), chunks=chunks, vectors=vectors,
                    entities=list(entities.values()), relations=relations, parts=parts, sentences=sentence_rows)


# ---- the write order ---------------------------------------------------------------------------------------------

def _store_writers(kb: "KnowledgeBase") -> list[tuple[str, Callable[[Prepared], None], Callable[[str], None]]]:
    """(part, write, delete) of every store a document has parts in, in write order (``PARTS``). Each store is
    opened only when it is used (a delete must not need Neo4j before it needs Chroma)."""
    from rag.sentences import store_for

    sentences = store_for(kb.settings.data_dir)

    def write_sentences(p: Prepared) -> None:
        if p.sentences:
            sentences.write(p.sentences, kb.embedder.name)

    return [
        ("vectors", lambda p: kb.vectors.add_chunks(p.chunks, p.vectors), lambda d: kb.vectors.delete_document(d)),
        ("sentences", write_sentences, sentences.delete_document),
        ("graph", lambda p: kb.graph.upsert(p.doc_id, p.entities, p.relations), lambda d: kb.graph.delete_document(d)),
    ]


def delete_parts(kb: "KnowledgeBase", doc_id: str, parts: tuple[str, ...] = PARTS,
                 boundary_prefix: str | None = None) -> None:
    """Remove a document's parts from the stores (every one: a missing part is not an error)."""
    for part, _, delete in _store_writers(kb):
        if part in parts:
            delete(doc_id)
            if boundary_prefix:
                fault_point(f"{boundary_prefix}:{part}")


def _undo(kb: "KnowledgeBase", doc_id: str, parts: list[str]) -> bool:
    """Best effort after a failed write: remove each written part; False when a store refused (then the row
    stays "pending" and a later repair, with the store back, finishes the job)."""
    clean = True
    for part in parts:
        try:
            delete_parts(kb, doc_id, (part,))
        except Exception:  # the write's own error is the one to report
            clean = False
    return clean


def write_document(kb: "KnowledgeBase", prepared: Prepared, *, origin: str, replaces: list[str],
                   new: bool, ingested_at: str, progress: ProgressCallback) -> None:
    """Write ``prepared`` in the crash-safe order (the caller holds the writer lock).

    ``new``: the document is not registered yet (intent row first, commit after the stores); otherwise it is a
    committed document whose missing parts are written again (a restore: the row is updated after the stores).
    ``replaces``: doc ids of the older versions of the same file, dropped once the new one is committed.
    A failed write removes what this call wrote and leaves the registry as it was."""
    registry = kb.registry
    row = dict(doc_id=prepared.doc_id, source=prepared.source, n_chunks=len(prepared.chunks),
               n_chars=prepared.n_chars, n_entities=len(prepared.entities), n_relations=len(prepared.relations),
               embedder=kb.embedder.name, ingested_at=ingested_at, origin=origin)
    if new:
        registry.intent(row)
        fault_point("ingest:intent")
    written: list[str] = []
    try:
        for part, write, _ in _store_writers(kb):
            stage = {"vectors": "vector store", "graph": "graph"}.get(part)  # the INGEST_STAGES it reports
            if stage:
                progress(prepared.source, stage, 0.0)
            if part in prepared.parts or (part == "sentences" and "vectors" in prepared.parts):
                written.append(part)
                write(prepared)
                fault_point(f"ingest:{part}")
            if stage:
                progress(prepared.source, stage, 1.0)
        if not new:  # a restore: keep the counts of the parts that were not written again
            old = registry.get(prepared.doc_id)
            if "graph" not in prepared.parts and old is not None:
                row.update(n_entities=old["n_entities"], n_relations=old["n_relations"])
        registry.commit(row, replaces)
        kb.note_own_write()
    except BaseException:
        if _undo(kb, prepared.doc_id, written) and new:
            registry.remove(prepared.doc_id)
        raise
    fault_point("ingest:commit")
    for old in replaces:  # the new version is committed: drop the older one's parts, then its row
        delete_parts(kb, old)
        registry.remove(old)
    if replaces:
        fault_point("ingest:drop-old")


def delete_document(kb: "KnowledgeBase", doc_id: str) -> bool:
    """Remove one committed document in the crash-safe order. False when it is not committed."""
    with kb.writer():
        if not kb.registry.mark_deleting(doc_id):
            return False
        kb.note_own_write()
        fault_point("delete:mark")
        delete_parts(kb, doc_id, boundary_prefix="delete")
        kb.registry.remove(doc_id)
        return True


def _sweep_sentences(kb: "KnowledgeBase", known: set[str]) -> list[str]:
    """Remove sentence vectors of documents the registry does not hold (rag.sentences writes them at ingest and
    backfills them at question time, so a delete racing a question can leave some)."""
    from rag.sentences import store_for

    store = store_for(kb.settings.data_dir)
    if not store.path.exists():  # none written yet: nothing to sweep, and no file is made for it
        return []
    stray = sorted(store.doc_ids() - known)
    for doc_id in stray:
        store.delete_document(doc_id)
    return stray


@dataclass
class RepairReport:
    pending: list[str] = field(default_factory=list)  # intents of ingests that never committed: removed
    blocked: list[str] = field(default_factory=list)  # unfinished, but a store refused: left for a later repair
    blocked_reason: str = ""
    deleting: list[str] = field(default_factory=list)  # deletes that never finished: finished
    orphan_chunks: int = 0  # chunks of documents the registry does not hold (full repair)
    orphan_docs_in_graph: list[str] = field(default_factory=list)
    orphan_tokens: int = 0
    orphan_sentence_docs: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.pending or self.deleting or self.orphan_chunks or self.orphan_docs_in_graph
                    or self.orphan_tokens or self.orphan_sentence_docs)

    def summary(self) -> str:
        if not self.changed and not self.blocked:
            return "nothing to repair: every store holds committed documents only"
        parts = []
        if self.pending:
            parts.append(f"{len(self.pending)} interrupted ingest(s) rolled back")
        if self.blocked:
            parts.append(f"{len(self.blocked)} left for later ({self.blocked_reason})")
        if self.deleting:
            parts.append(f"{len(self.deleting)} interrupted delete(s) finished")
        if self.orphan_chunks:
            parts.append(f"{self.orphan_chunks} chunk(s) of unregistered documents removed")
        if self.orphan_docs_in_graph:
            parts.append(f"graph facts of {len(self.orphan_docs_in_graph)} unregistered document(s) removed")
        if self.orphan_tokens:
            parts.append(f"{self.orphan_tokens} stale BM25 token entries removed")
        if self.orphan_sentence_docs:
            parts.append(f"sentence vectors of {len(self.orphan_sentence_docs)} unregistered document(s) removed")
        return "; ".join(parts)


def repair(kb: "KnowledgeBase", full: bool = False) -> RepairReport:
    """Remove what interrupted writes left behind (the caller holds the writer lock, or this takes it).

    Always: rows still "pending" (their parts are removed, then the row) and "deleting" (the delete is finished).
    ``full``: also every chunk, graph document and BM25 token entry of a document that is not registered."""
    report = RepairReport()
    with kb.writer(what="repair"):
        for row in kb.registry.unfinished():
            try:
                delete_parts(kb, row["doc_id"])
            except RagError as exc:  # e.g. Neo4j down: the row stays, the next repair tries again
                report.blocked.append(row["doc_id"])
                report.blocked_reason = str(exc)
                continue
            kb.registry.remove(row["doc_id"])
            (report.pending if row["state"] == "pending" else report.deleting).append(row["doc_id"])
        if full:
            known = kb.registry.all_doc_ids()
            stray = sorted(set(kb.vectors.doc_ids()) - known)
            for doc_id in stray:
                report.orphan_chunks += len(kb.vectors.chunk_ids(doc_id))
                kb.vectors.delete_document(doc_id)
            report.orphan_docs_in_graph = sorted(set(kb.graph.document_ids()) - known)
            for doc_id in report.orphan_docs_in_graph:
                kb.graph.delete_document(doc_id)
            report.orphan_tokens = kb.vectors.token_cache.keep_only(known)
            report.orphan_sentence_docs = _sweep_sentences(kb, known)
        if report.changed and (report.pending or report.deleting or full):
            kb.registry.bump()
            kb.note_own_write()
    return report
