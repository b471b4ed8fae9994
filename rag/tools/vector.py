"""Hybrid retrieval over the chunks: dense (Chroma) + BM25 (bm25s), fused with reciprocal rank fusion.

Score of a chunk = sum over the two rankings of 1 / (RRF_K + rank). The BM25 index is built from
all chunks' ``textutil.tokenize`` tokens (Korean stems, Chinese bigrams) and rebuilt lazily when the
knowledge base changes; the tokens are computed once, when a chunk is written, and read back from the
vector store's token cache, so a rebuild costs the Chroma read and bm25s indexing, not tokenization.
Every result carries its dense cosine similarity (computed from the stored vector when only BM25 found
it), BM25 score and both ranks in ``metadata``.
"""
from __future__ import annotations

import threading
from typing import Any

import numpy as np

from rag.config import Settings
from rag.embeddings import cosine
from rag.textutil import tokenize
from rag.types import Chunk, RagError, Retrieved, ToolUnavailable

RRF_K = 60
CANDIDATES = 20  # per ranking, at least


def top_positive(scores: np.ndarray, n: int) -> list[int]:
    """Indices of the ``n`` best positive scores, best first, ties in index order — the order of a full sort
    by (-score, index), found with ``np.partition`` instead of sorting every score."""
    scores = np.asarray(scores, dtype=np.float64)
    if n <= 0 or scores.size == 0:
        return []
    if scores.size > n:
        cutoff = np.partition(scores, scores.size - n)[scores.size - n]  # the n-th best score
        candidates = np.flatnonzero((scores >= cutoff) & (scores > 0.0))
    else:
        candidates = np.flatnonzero(scores > 0.0)
    order = candidates[np.lexsort((candidates, -scores[candidates]))]
    return [int(i) for i in order[:n]]


class _Bm25Index:
    def __init__(self, chunks: list[Chunk], tokens: list[list[str]]) -> None:
        import bm25s

        self.chunks = chunks
        self.retriever = bm25s.BM25()
        if chunks:
            self.retriever.index(tokens, show_progress=False)

    def search(self, query: str, n: int) -> list[tuple[Chunk, float]]:
        tokens = tokenize(query)
        if not tokens or not self.chunks:
            return []
        scores = self.retriever.get_scores(tokens)
        return [(self.chunks[i], float(scores[i])) for i in top_positive(scores, n)]


class VectorTool:
    name = "vector"

    def __init__(self, kb: Any, settings: Settings) -> None:
        self.kb = kb
        self.settings = settings
        self._index: _Bm25Index | None = None
        self._index_key: tuple[int, int] | None = None
        self._lock = threading.Lock()

    def available(self) -> tuple[bool, str]:
        try:
            self.kb.check_embedder()
            n = self.kb.vectors.count()
        except RagError as exc:  # its own message says what failed and what to do
            return False, str(exc)
        except Exception as exc:  # the caller words it as "unavailable": say only what failed
            return False, f"vector store failed: {type(exc).__name__}: {exc}"
        if n == 0:
            return False, "the knowledge base is empty: ingest documents first"
        return True, f"hybrid dense + BM25 over {n} chunks"

    def _bm25(self) -> _Bm25Index:
        key = (self.kb.revision(), self.kb.vectors.count())
        with self._lock:
            if self._index is None or self._index_key != key:
                self._index = _Bm25Index(*self.kb.vectors.all_chunks_with_tokens())
                self._index_key = key
            return self._index

    def run(self, query: str, top_k: int) -> list[Retrieved]:
        try:
            self.kb.check_embedder()
            store = self.kb.vectors
            if store.count() == 0:
                return []
            n = max(CANDIDATES, top_k * 5)
            query_vector = self.kb.embedder.embed_query(query)
            dense = store.dense_query(query_vector, n)
            sparse = self._bm25().search(query, n)
        except RagError as exc:
            raise ToolUnavailable(str(exc)) from exc
        except Exception as exc:
            raise ToolUnavailable(f"vector store failed: {type(exc).__name__}: {exc}") from exc

        fused: dict[str, dict[str, Any]] = {}
        for rank, (chunk, sim) in enumerate(dense, start=1):
            entry = fused.setdefault(chunk.chunk_id, {"chunk": chunk, "score": 0.0})
            entry.update(dense_similarity=sim, dense_rank=rank)
            entry["score"] += 1.0 / (RRF_K + rank)
        for rank, (chunk, bm25) in enumerate(sparse, start=1):
            entry = fused.setdefault(chunk.chunk_id, {"chunk": chunk, "score": 0.0})
            entry.update(bm25_score=bm25, bm25_rank=rank)
            entry["score"] += 1.0 / (RRF_K + rank)
        best = sorted(fused.values(), key=lambda e: (-e["score"], e["chunk"].chunk_id))[:top_k]

        missing = [e["chunk"].chunk_id for e in best if "dense_similarity" not in e]
        if missing:  # found by BM25 only: the grader still needs its similarity to the query
            stored = store.embeddings(missing)
            for e in best:
                if "dense_similarity" not in e and e["chunk"].chunk_id in stored:
                    e["dense_similarity"] = cosine(query_vector, stored[e["chunk"].chunk_id])

        out: list[Retrieved] = []
        for e in best:
            chunk: Chunk = e["chunk"]
            out.append(Retrieved(
                id=chunk.chunk_id, text=chunk.text, source=chunk.source, score=round(e["score"], 6), tool="vector",
                doc_id=chunk.doc_id, chunk_index=chunk.index,
                metadata={"dense_similarity": round(float(e.get("dense_similarity", 0.0)), 6),
                          "bm25_score": round(float(e.get("bm25_score", 0.0)), 6),
                          "dense_rank": e.get("dense_rank"), "bm25_rank": e.get("bm25_rank")},
            ))
        return out
