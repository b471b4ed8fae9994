"""Chroma wrapper: one collection per embedding model, vectors always passed in explicitly.

``PersistentClient(data_dir/"chroma")`` by default, ``HttpClient`` when ``CHROMA_HOST`` is set;
telemetry off. On a Chroma server, which several knowledge bases may share, every collection name starts
with the knowledge-base id (``<kb_id>-chunks-<model>``) and ``drop_all_collections`` drops only its own.
A local client keeps its own copy of the index; ``reopen_local_client`` replaces it after another process
changed the data directory (``KnowledgeBase.refresh``). Collections are created with
``embedding_function=None`` so Chroma never loads (or downloads) its own model; the embedder's name is kept
in the collection metadata and a collection built by another model is refused rather than mixed.
"""
from __future__ import annotations

import hashlib
import re
import sqlite3
import threading
from contextlib import closing
from pathlib import Path
from typing import Any, Iterable, Iterator

from rag.config import Settings, redact_url
from rag.types import Chunk, RagError

_GET_PAGE = 5000  # rows per Chroma get(): stays under its batch limits
TOKEN_CACHE_FILE = "bm25_tokens.sqlite3"
_TOKEN_SEP = "\x1f"  # tokens never hold control characters (see rag.textutil)
_SQL_BATCH = 500  # host parameters per IN (...) lookup
# generation of each local Chroma path's client in this process: bumped by reopen_local_client
_GENERATION: dict[str, int] = {}
_GENERATION_LOCK = threading.Lock()


def _tokenizer_fingerprint() -> str:
    """Changes whenever rag/textutil.py or rag/romanize.py (the name keys) changes, so tokens made by an older
    tokenizer are never reused."""
    from rag import romanize, textutil

    digest = hashlib.sha1(Path(textutil.__file__).read_bytes())
    digest.update(Path(romanize.__file__).read_bytes())
    return digest.hexdigest()[:16]


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class TokenCache:
    """BM25 tokens of chunk texts (``rag.textutil.tokenize``) followed by their name keys (``rag.romanize``:
    ``index_tokens``; the vector tool splits them into its BM25 and name indexes), kept in
    ``data_dir/bm25_tokens.sqlite3``.

    Keyed by the sha1 of the text and the document it belongs to, so an entry can never belong to another
    text (a chunk id is reused when the same file is ingested again with another chunk size) and a deleted
    document's entries go with it: deleted from the file for real (``secure_delete`` overwrites the freed
    space, the WAL is checkpointed and truncated), since the tokens are the document's words. Entries made
    by another version of the tokenizer are dropped when the cache is opened. Tokens are computed when
    chunks are written, so building the BM25 index does not tokenize the whole collection again."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        fingerprint = _tokenizer_fingerprint()
        with closing(self._connect()) as conn, conn:
            columns = {r[1] for r in conn.execute("PRAGMA table_info(tokens)")}
            if columns and "doc_id" not in columns:  # a cache of the former layout: rebuilt on demand
                conn.execute("DROP TABLE tokens")
            conn.execute("CREATE TABLE IF NOT EXISTS tokens (text_sha1 TEXT NOT NULL, doc_id TEXT NOT NULL, "
                         "tokens TEXT NOT NULL, PRIMARY KEY (text_sha1, doc_id))")
            conn.execute("CREATE INDEX IF NOT EXISTS tokens_doc ON tokens(doc_id)")
            conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            row = conn.execute("SELECT value FROM meta WHERE key = 'tokenizer'").fetchone()
            if row is None or row[0] != fingerprint:
                conn.execute("DELETE FROM tokens")
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('tokenizer', ?)", (fingerprint,))

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA secure_delete=ON")
        return conn

    def lookup(self, hashes: Iterable[str]) -> dict[str, list[str]]:
        """Cached tokens by text hash (hashes without an entry are left out)."""
        unique = list(dict.fromkeys(hashes))
        found: dict[str, list[str]] = {}
        with closing(self._connect()) as conn:
            for start in range(0, len(unique), _SQL_BATCH):
                batch = unique[start : start + _SQL_BATCH]
                rows = conn.execute(f"SELECT text_sha1, tokens FROM tokens WHERE text_sha1 IN "
                                    f"({','.join('?' * len(batch))})", batch)
                for h, joined in rows:
                    found[h] = joined.split(_TOKEN_SEP) if joined else []
        return found

    def store(self, entries: dict[tuple[str, str], list[str]]) -> None:
        """Cache ``{(text hash, doc id): tokens}``."""
        if not entries:
            return
        with closing(self._connect()) as conn, conn:
            conn.executemany("INSERT OR REPLACE INTO tokens VALUES (?, ?, ?)",
                             ((h, doc, _TOKEN_SEP.join(toks)) for (h, doc), toks in entries.items()))

    def tokens_for(self, texts: list[str], doc_ids: list[str]) -> list[list[str]]:
        """Tokens of every text (of the document at the same position), in order: from the cache, or tokenized
        now and cached under that document."""
        from rag.romanize import index_tokens

        hashes = [text_hash(t) for t in texts]
        known = self.lookup(hashes)
        missing: dict[tuple[str, str], list[str]] = {}
        for h, text, doc in zip(hashes, texts, doc_ids):
            if h not in known:
                known[h] = index_tokens(text)
                missing[(h, doc)] = known[h]
        self.store(missing)
        return [known[h] for h in hashes]

    def store_owned(self, texts: list[str], doc_ids: list[str]) -> None:
        """Tokens of chunks being written, cached under their own document even when an identical text is cached
        under another one, so deleting that other document never takes these tokens with it."""
        tokens = self.tokens_for(texts, doc_ids)
        with closing(self._connect()) as conn, conn:
            conn.executemany("INSERT OR IGNORE INTO tokens VALUES (?, ?, ?)",
                             ((text_hash(t), doc, _TOKEN_SEP.join(toks))
                              for t, doc, toks in zip(texts, doc_ids, tokens)))

    def delete_document(self, doc_id: str) -> None:
        with closing(self._connect()) as conn:
            with conn:
                conn.execute("DELETE FROM tokens WHERE doc_id = ?", (doc_id,))
            self._truncate_wal(conn)

    def keep_only(self, doc_ids: set[str]) -> int:
        """Delete the entries of every document not in ``doc_ids``; -> how many were deleted."""
        with closing(self._connect()) as conn:
            stale = [r[0] for r in conn.execute("SELECT DISTINCT doc_id FROM tokens") if r[0] not in doc_ids]
            n = 0
            with conn:
                for doc in stale:
                    n += conn.execute("DELETE FROM tokens WHERE doc_id = ?", (doc,)).rowcount
            self._truncate_wal(conn)
        return n

    @staticmethod
    def _truncate_wal(conn: sqlite3.Connection) -> None:
        """Move the WAL into the database file and empty it: the deleted rows' old pages leave the disk."""
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def clear(self) -> None:
        with closing(self._connect()) as conn:
            with conn:
                conn.execute("DELETE FROM tokens")
            self._truncate_wal(conn)


def collection_name(embedder_name: str, kb_id: str | None = None) -> str:
    """Chroma-safe collection name for an embedding model (3-512 chars of [a-zA-Z0-9._-]); prefixed with the
    knowledge-base id on a shared server."""
    safe = re.sub(r"[^a-zA-Z0-9._-]+", "-", embedder_name).strip("-._") or "default"
    return (f"{kb_id}-" if kb_id else "") + f"chunks-{safe}"[:200]


def _local_path(settings: Settings) -> str:
    return str(settings.data_dir / "chroma")


def reopen_local_client(settings: Settings) -> None:
    """Drop this process's local Chroma client of the data directory (its in-memory index may predate another
    process's writes); every ``VectorStore`` on that path opens a fresh one on its next call."""
    from chromadb.api.shared_system_client import SharedSystemClient

    path = _local_path(settings)
    with _GENERATION_LOCK:
        system = SharedSystemClient._identifier_to_system.pop(path, None)
        SharedSystemClient._identifier_to_refcount.pop(path, None)
        _GENERATION[path] = _GENERATION.get(path, 0) + 1
    if system is not None:
        system.stop()


def _client(settings: Settings):
    try:
        import chromadb
        from chromadb.config import Settings as ChromaSettings
    except ImportError as exc:  # pragma: no cover - pinned in requirements.txt
        raise RagError("The vector store needs chromadb: pip install -r requirements.txt") from exc
    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    if settings.chroma_host:
        headers = {"Authorization": f"Bearer {settings.chroma_token}"} if settings.chroma_token else None
        try:
            return chromadb.HttpClient(host=settings.chroma_host, port=settings.chroma_port, headers=headers,
                                       settings=chroma_settings)
        except Exception as exc:
            raise RagError(f"Chroma server at {redact_url(settings.chroma_host)}:{settings.chroma_port} is unreachable "
                           f"({type(exc).__name__}: {exc}). Start it, or unset CHROMA_HOST to use the local store."
                           ) from exc
    path = settings.data_dir / "chroma"
    path.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=_local_path(settings), settings=chroma_settings)


def _chunk_from(chunk_id: str, text: str | None, meta: dict[str, Any] | None) -> Chunk:
    meta = meta or {}
    doc_id = str(meta.get("doc_id") or chunk_id.rsplit(":", 1)[0])
    return Chunk(doc_id=doc_id, source=str(meta.get("source", "")), index=int(meta.get("chunk_index", 0)),
                 text=text or "")


class VectorStore:
    """Chunks and their vectors for one embedding model."""

    def __init__(self, settings: Settings, embedder_name: str, dim: int | None = None,
                 kb_id: str | None = None) -> None:
        self.settings = settings
        self.embedder_name = embedder_name
        self.backend = "chroma-http" if settings.chroma_host else "chroma-persistent"
        self.kb_id = kb_id
        self.name = collection_name(embedder_name, kb_id if settings.chroma_host else None)
        self._dim = dim
        self._generation = self._current_generation()
        self._client = _client(settings)
        self._coll = self._open()
        self.token_cache = TokenCache(settings.data_dir / TOKEN_CACHE_FILE)

    def _current_generation(self) -> int:
        return 0 if self.settings.chroma_host else _GENERATION.get(_local_path(self.settings), 0)

    @property
    def _collection(self):
        """The collection, from a fresh client when ``reopen_local_client`` dropped the one it came from."""
        generation = self._current_generation()
        if generation != self._generation:
            self._client = _client(self.settings)
            self._coll = self._open()
            self._generation = generation
        return self._coll

    @property
    def location(self) -> str:
        if self.settings.chroma_host:
            return f"http://{redact_url(self.settings.chroma_host)}:{self.settings.chroma_port}"
        return str(self.settings.data_dir / "chroma")

    def _open(self):
        metadata: dict[str, Any] = {"embedder": self.embedder_name}
        if self._dim:
            metadata["dim"] = int(self._dim)
        collection = self._client.get_or_create_collection(
            self.name, embedding_function=None, metadata=metadata, configuration={"hnsw": {"space": "cosine"}}
        )
        stored = (collection.metadata or {}).get("embedder")
        if stored != self.embedder_name:
            raise RagError(
                f"Chroma collection {self.name!r} holds vectors of embedding model {stored!r}, not "
                f"{self.embedder_name!r}; mixing them would make similarities meaningless. Reset the knowledge "
                "base (python -m rag reset) or switch RAG_EMBEDDING back."
            )
        stored_dim = (collection.metadata or {}).get("dim")
        if self._dim and stored_dim and int(stored_dim) != int(self._dim):
            raise RagError(f"Chroma collection {self.name!r} holds {stored_dim}-dimensional vectors but "
                           f"{self.embedder_name!r} makes {self._dim}-dimensional ones. Reset the knowledge base.")
        return collection

    # ---- writes ----------------------------------------------------------
    def add_chunks(self, chunks: list[Chunk], embeddings: list[list[float]]) -> None:
        if len(chunks) != len(embeddings):
            raise ValueError(f"{len(chunks)} chunks but {len(embeddings)} embeddings")
        if self._dim and embeddings and len(embeddings[0]) != self._dim:
            raise RagError(f"embedding has {len(embeddings[0])} dimensions, the collection expects {self._dim}")
        # BM25 tokens now, once per text: the index rebuilt after this write reads them instead of tokenizing
        # every chunk of the collection again (keyed by text, so the entries of a rolled-back write are harmless)
        self.token_cache.store_owned([c.text for c in chunks], [c.doc_id for c in chunks])
        for start in range(0, len(chunks), 1000):
            batch = chunks[start : start + 1000]
            self._collection.upsert(
                ids=[c.chunk_id for c in batch],
                embeddings=[list(map(float, e)) for e in embeddings[start : start + 1000]],
                documents=[c.text for c in batch],
                metadatas=[{"doc_id": c.doc_id, "source": c.source, "chunk_index": c.index} for c in batch],
            )

    def delete_document(self, doc_id: str) -> None:
        """Remove the document's chunks and vectors, and its BM25 tokens."""
        self._collection.delete(where={"doc_id": doc_id})
        self.token_cache.delete_document(doc_id)

    def reset(self) -> None:
        try:
            self._client.delete_collection(self.name)
        except Exception:  # already gone
            pass
        self._coll = self._open()

    # ---- reads -----------------------------------------------------------
    def count(self) -> int:
        return int(self._collection.count())

    def dense_query(self, embedding: list[float], k: int) -> list[tuple[Chunk, float]]:
        """The ``k`` nearest chunks with cosine similarity (1 - cosine distance), best first."""
        n = self.count()
        if n == 0:
            return []
        result = self._collection.query(query_embeddings=[list(map(float, embedding))], n_results=min(k, n),
                                        include=["documents", "metadatas", "distances"])
        out: list[tuple[Chunk, float]] = []
        for cid, text, meta, dist in zip(result["ids"][0], result["documents"][0], result["metadatas"][0],
                                         result["distances"][0]):
            out.append((_chunk_from(cid, text, meta), 1.0 - float(dist)))
        return out

    def _pages(self, include: list[str], where: dict[str, Any] | None = None,
               ids: list[str] | None = None) -> Iterator[dict[str, Any]]:
        """Chroma ``get()`` results, page by page (a lookup by ``ids`` is one page)."""
        offset = 0
        while True:
            result = self._collection.get(where=where, ids=ids, include=include, limit=_GET_PAGE, offset=offset)
            yield result
            if len(result["ids"]) < _GET_PAGE or ids is not None:
                return
            offset += _GET_PAGE

    def _get(self, where: dict[str, Any] | None = None, ids: list[str] | None = None) -> list[Chunk]:
        chunks = [_chunk_from(cid, text, meta)
                  for result in self._pages(["documents", "metadatas"], where, ids)
                  for cid, text, meta in zip(result["ids"], result["documents"], result["metadatas"])]
        chunks.sort(key=lambda c: (c.doc_id, c.index))
        return chunks

    def all_chunks(self) -> list[Chunk]:
        return self._get()

    def all_chunks_with_tokens(self) -> tuple[list[Chunk], list[list[str]]]:
        """Every chunk and its BM25 tokens (cached at write time; chunks written before the cache existed
        are tokenized now, once)."""
        chunks = self._get()
        return chunks, self.token_cache.tokens_for([c.text for c in chunks], [c.doc_id for c in chunks])

    def chunks_with_tokens(self, doc_ids: list[str]) -> tuple[list[Chunk], list[list[str]]]:
        """The chunks of these documents and their BM25 tokens (an incremental BM25 update)."""
        chunks: list[Chunk] = []
        for start in range(0, len(doc_ids), _SQL_BATCH):
            batch = doc_ids[start : start + _SQL_BATCH]
            chunks.extend(self._get(where={"doc_id": batch[0]} if len(batch) == 1 else {"doc_id": {"$in": batch}}))
        return chunks, self.token_cache.tokens_for([c.text for c in chunks], [c.doc_id for c in chunks])

    def chunks(self, doc_id: str) -> list[Chunk]:
        return self._get(where={"doc_id": doc_id})

    def chunk_ids(self, doc_id: str) -> list[str]:
        return list(self._collection.get(where={"doc_id": doc_id}, include=[])["ids"])

    def doc_ids(self) -> set[str]:
        """The doc id of every chunk in the collection (``rag repair``'s sweep)."""
        return {str((m or {}).get("doc_id") or cid.rsplit(":", 1)[0])
                for result in self._pages(["metadatas"]) for cid, m in zip(result["ids"], result["metadatas"])}

    def get(self, chunk_id: str) -> Chunk | None:
        found = self._get(ids=[chunk_id])
        return found[0] if found else None

    def embeddings(self, chunk_ids: list[str]) -> dict[str, list[float]]:
        """Stored vectors by chunk id (for graders that compare a query with a chunk)."""
        if not chunk_ids:
            return {}
        result = self._collection.get(ids=list(chunk_ids), include=["embeddings"])
        return {cid: [float(x) for x in emb] for cid, emb in zip(result["ids"], result["embeddings"])}


def drop_all_collections(settings: Settings, kb_id: str | None = None) -> None:
    """Delete the chunk collections of every embedding model (used by ``KnowledgeBase.reset``) — on a Chroma
    server only those of knowledge base ``kb_id``."""
    client = _client(settings)
    prefix = f"{kb_id}-chunks-" if settings.chroma_host and kb_id else "chunks-"
    for col in client.list_collections():
        name = col if isinstance(col, str) else col.name
        if name.startswith(prefix):
            client.delete_collection(name)
    TokenCache(settings.data_dir / TOKEN_CACHE_FILE).clear()
