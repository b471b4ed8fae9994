"""Chroma wrapper: one collection per embedding model, vectors always passed in explicitly.

``PersistentClient(data_dir/"chroma")`` by default, ``HttpClient`` when ``CHROMA_HOST`` is set;
telemetry off. Collections are created with ``embedding_function=None`` so Chroma never loads
(or downloads) its own model; the embedder's name is kept in the collection metadata and a
collection built by another model is refused rather than mixed.
"""
from __future__ import annotations

import hashlib
import re
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any, Iterable

from rag.config import Settings
from rag.types import Chunk, RagError

_GET_PAGE = 5000  # rows per Chroma get(): stays under its batch limits
TOKEN_CACHE_FILE = "bm25_tokens.sqlite3"
_TOKEN_SEP = "\x1f"  # tokens never hold control characters (see rag.textutil)
_SQL_BATCH = 500  # host parameters per IN (...) lookup


def _tokenizer_fingerprint() -> str:
    """Changes whenever rag/textutil.py changes, so tokens made by an older tokenizer are never reused."""
    from rag import textutil

    return hashlib.sha1(Path(textutil.__file__).read_bytes()).hexdigest()[:16]


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class TokenCache:
    """BM25 tokens of chunk texts (``rag.textutil.tokenize``), kept in ``data_dir/bm25_tokens.sqlite3``.

    Keyed by the sha1 of the text, so an entry can never belong to another text (a chunk id is reused
    when the same file is ingested again with another chunk size); entries made by another version of
    the tokenizer are dropped when the cache is opened. Tokens are computed when chunks are written,
    so rebuilding the BM25 index after an ingest does not tokenize the whole collection again."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        fingerprint = _tokenizer_fingerprint()
        with closing(self._connect()) as conn, conn:
            conn.execute("CREATE TABLE IF NOT EXISTS tokens (text_sha1 TEXT PRIMARY KEY, tokens TEXT NOT NULL)")
            conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            row = conn.execute("SELECT value FROM meta WHERE key = 'tokenizer'").fetchone()
            if row is None or row[0] != fingerprint:
                conn.execute("DELETE FROM tokens")
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('tokenizer', ?)", (fingerprint,))

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
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

    def store(self, entries: dict[str, list[str]]) -> None:
        if not entries:
            return
        with closing(self._connect()) as conn, conn:
            conn.executemany("INSERT OR REPLACE INTO tokens VALUES (?, ?)",
                             ((h, _TOKEN_SEP.join(toks)) for h, toks in entries.items()))

    def tokens_for(self, texts: list[str]) -> list[list[str]]:
        """Tokens of every text, in order: from the cache, or tokenized now (and cached)."""
        from rag.textutil import tokenize

        hashes = [text_hash(t) for t in texts]
        known = self.lookup(hashes)
        missing: dict[str, list[str]] = {}
        for h, text in zip(hashes, texts):
            if h not in known and h not in missing:
                missing[h] = tokenize(text)
        self.store(missing)
        known.update(missing)
        return [known[h] for h in hashes]

    def clear(self) -> None:
        with closing(self._connect()) as conn, conn:
            conn.execute("DELETE FROM tokens")


def collection_name(embedder_name: str) -> str:
    """Chroma-safe collection name for an embedding model (3-512 chars of [a-zA-Z0-9._-])."""
    safe = re.sub(r"[^a-zA-Z0-9._-]+", "-", embedder_name).strip("-._") or "default"
    return f"chunks-{safe}"[:200]


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
            raise RagError(f"Chroma server at {settings.chroma_host}:{settings.chroma_port} is unreachable "
                           f"({type(exc).__name__}: {exc}). Start it, or unset CHROMA_HOST to use the local store."
                           ) from exc
    path = settings.data_dir / "chroma"
    path.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(path), settings=chroma_settings)


def _chunk_from(chunk_id: str, text: str | None, meta: dict[str, Any] | None) -> Chunk:
    meta = meta or {}
    doc_id = str(meta.get("doc_id") or chunk_id.rsplit(":", 1)[0])
    return Chunk(doc_id=doc_id, source=str(meta.get("source", "")), index=int(meta.get("chunk_index", 0)),
                 text=text or "")


class VectorStore:
    """Chunks and their vectors for one embedding model."""

    def __init__(self, settings: Settings, embedder_name: str, dim: int | None = None) -> None:
        self.settings = settings
        self.embedder_name = embedder_name
        self.backend = "chroma-http" if settings.chroma_host else "chroma-persistent"
        self.name = collection_name(embedder_name)
        self._dim = dim
        self._client = _client(settings)
        self._collection = self._open()
        self.token_cache = TokenCache(settings.data_dir / TOKEN_CACHE_FILE)

    @property
    def location(self) -> str:
        if self.settings.chroma_host:
            return f"http://{self.settings.chroma_host}:{self.settings.chroma_port}"
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
        self.token_cache.tokens_for([c.text for c in chunks])
        for start in range(0, len(chunks), 1000):
            batch = chunks[start : start + 1000]
            self._collection.upsert(
                ids=[c.chunk_id for c in batch],
                embeddings=[list(map(float, e)) for e in embeddings[start : start + 1000]],
                documents=[c.text for c in batch],
                metadatas=[{"doc_id": c.doc_id, "source": c.source, "chunk_index": c.index} for c in batch],
            )

    def delete_document(self, doc_id: str) -> None:
        self._collection.delete(where={"doc_id": doc_id})

    def reset(self) -> None:
        try:
            self._client.delete_collection(self.name)
        except Exception:  # already gone
            pass
        self._collection = self._open()

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

    def _get(self, where: dict[str, Any] | None = None, ids: list[str] | None = None) -> list[Chunk]:
        chunks: list[Chunk] = []
        offset = 0
        while True:
            result = self._collection.get(where=where, ids=ids, include=["documents", "metadatas"],
                                          limit=_GET_PAGE, offset=offset)
            batch = [_chunk_from(cid, text, meta)
                     for cid, text, meta in zip(result["ids"], result["documents"], result["metadatas"])]
            chunks.extend(batch)
            if len(batch) < _GET_PAGE or ids is not None:
                break
            offset += _GET_PAGE
        chunks.sort(key=lambda c: (c.doc_id, c.index))
        return chunks

    def all_chunks(self) -> list[Chunk]:
        return self._get()

    def all_chunks_with_tokens(self) -> tuple[list[Chunk], list[list[str]]]:
        """Every chunk and its BM25 tokens (cached at write time; chunks written before the cache existed
        are tokenized now, once)."""
        chunks = self._get()
        return chunks, self.token_cache.tokens_for([c.text for c in chunks])

    def chunks(self, doc_id: str) -> list[Chunk]:
        return self._get(where={"doc_id": doc_id})

    def get(self, chunk_id: str) -> Chunk | None:
        found = self._get(ids=[chunk_id])
        return found[0] if found else None

    def embeddings(self, chunk_ids: list[str]) -> dict[str, list[float]]:
        """Stored vectors by chunk id (for graders that compare a query with a chunk)."""
        if not chunk_ids:
            return {}
        result = self._collection.get(ids=list(chunk_ids), include=["embeddings"])
        return {cid: [float(x) for x in emb] for cid, emb in zip(result["ids"], result["embeddings"])}


def drop_all_collections(settings: Settings) -> None:
    """Delete the chunk collections of every embedding model (used by ``KnowledgeBase.reset``)."""
    client = _client(settings)
    for col in client.list_collections():
        name = col if isinstance(col, str) else col.name
        if name.startswith("chunks-"):
            client.delete_collection(name)
    TokenCache(settings.data_dir / TOKEN_CACHE_FILE).clear()
