"""Heavy shared resources, built once per process with ``st.cache_resource``.

Each builder is keyed by the data directory (and, for the engine, the engine-related settings), so a test or a
user that points ``RAG_DATA_DIR`` elsewhere gets its own knowledge base and run store. One ``KnowledgeBase`` per
data directory: two instances on one directory would each hold their own copy of the embedded graph. The cached
instance stays valid when the CLI (or another app process) ingests or deletes in the same data directory: before
each question it compares the registry's revision and reopens its Chroma client and catches up its BM25 index
(``KnowledgeBase.refresh``), so no restart is needed.
"""
from __future__ import annotations

import inspect
import json
import threading
from pathlib import Path
from typing import Any

import streamlit as st

from rag.config import Settings

REPO_ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DOCS = REPO_ROOT / "sample_docs"
SAMPLE_QUESTIONS = SAMPLE_DOCS / "questions.jsonl"

# Settings that change how a question is run, not which engine / stores are built.
_INGEST_LOCK = threading.RLock()
_PER_RUN_FIELDS = {"threshold", "max_attempts", "top_k", "graph_hops", "chunk_size", "chunk_overlap", "data_dir"}


def settings(**overrides: Any) -> Settings:
    """Settings from the environment (cheap; read on every rerun so the data dir follows RAG_DATA_DIR)."""
    return Settings.from_env(**overrides)


def _engine_key(s: Settings) -> str:
    public = {k: v for k, v in s.public().items() if k not in _PER_RUN_FIELDS}
    # a changed key must build a new client, but the key itself never becomes part of a cache key
    public["openai_api_key_hash"] = hash(s.openai_api_key) if s.openai_api_key else None
    return json.dumps(public, sort_keys=True, default=str)


@st.cache_resource(show_spinner="Opening the knowledge base…")
def _knowledge_base(data_dir: str, key: str):
    from rag.kb import KnowledgeBase

    # the engine extracts entities at ingest time (rules offline, the router model with the llm engine)
    return KnowledgeBase(Settings.from_env(data_dir_override=data_dir), engine=_engine(key, data_dir))


def knowledge_base(s: Settings | None = None):
    """The one ``KnowledgeBase`` of this data directory."""
    s = s or settings()
    return _knowledge_base(str(s.data_dir), _engine_key(s))


@st.cache_resource(show_spinner="Loading the decision engine…")
def _engine(key: str, data_dir: str):
    from rag.engines import get_engine

    return get_engine(Settings.from_env(data_dir_override=data_dir))


def engine(s: Settings | None = None):
    """The decision engine (offline rules or LLM) for these settings."""
    s = s or settings()
    return _engine(_engine_key(s), str(s.data_dir))


@st.cache_resource
def _run_store(data_dir: str):
    from rag.runstore import RunStore

    return RunStore(data_dir)


def run_store(s: Settings | None = None):
    """The SQLite run store of this data directory."""
    s = s or settings()
    return _run_store(str(s.data_dir))


@st.cache_data
def sample_questions(path: str = str(SAMPLE_QUESTIONS)) -> list[dict[str, Any]]:
    """The sample questions (``sample_docs/questions.jsonl``): id, question, expected_route, kind, expected."""
    file = Path(path)
    if not file.exists():
        return []
    out = []
    for line in file.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            out.append(json.loads(line))
    return out


def sample_doc_paths() -> list[Path]:
    """The sample documents shipped in ``sample_docs/``: not its README (about the corpus, not part of it), not the
    question set."""
    if not SAMPLE_DOCS.exists():
        return []
    return sorted(p for p in SAMPLE_DOCS.iterdir()
                  if p.is_file() and p.name.lower() != "readme.md"
                  and p.suffix.lower() in {".txt", ".md", ".pdf", ".docx", ".html", ".htm"}) + \
        sorted((SAMPLE_DOCS / "tables").glob("*.csv"))  # the sample tables (sql tool, aggregate questions)


def variant_names() -> list[str]:
    """Registered agent variants, agentic first."""
    from rag.variants import VARIANTS

    names = list(VARIANTS)
    return sorted(names, key=lambda n: (n != "agentic", n != "naive", n))


def ingest_bytes(kb, name: str, data: bytes, *, chunk_size: int, chunk_overlap: int, progress=None,
                 replace: bool = False):
    """Ingest one uploaded file with this upload's chunking (an ``IngestResult``; never raises for a bad file).

    ``replace``: the upload replaces a document of the same name; otherwise a different file with a taken name is
    added beside it under a disambiguated name ("report.md (2)"), and the same bytes again are a "duplicate".
    The knowledge base chunks with ``kb.settings``; the upload's sizes apply to this file only, so they are swapped
    in under the knowledge base's lock and restored afterwards (other sessions share the same instance)."""
    if "chunk_size" in inspect.signature(kb.ingest_bytes).parameters:
        return kb.ingest_bytes(name, data, progress=progress, chunk_size=chunk_size, chunk_overlap=chunk_overlap,
                               replace=replace)
    lock = getattr(kb, "_lock", None) or _INGEST_LOCK
    with lock:
        saved = kb.settings
        kb.settings = saved.with_(chunk_size=chunk_size, chunk_overlap=chunk_overlap)
        try:
            return kb.ingest_bytes(name, data, progress=progress, replace=replace)
        finally:
            kb.settings = saved
