"""Issue 9, case 2: a `kill -9` at any write boundary leaves nothing visible, or something the next start repairs.

Each test lets a real `python -m rag ingest|delete` process kill itself (SIGKILL) at one boundary of the write order
(``RAG_FAULT_AT``, rag/ingest.py), then checks from this process: a reader that was already open (the app) never
returns a chunk of an uncommitted document; a knowledge base opened afterwards repairs what was left, so every
store (Chroma, BM25 tokens, sentence vectors, graph) holds parts of committed documents only; ingesting again works.
Before: chunks written before the kill stayed in Chroma, unlisted and undeletable, and answers cited them.
"""
from __future__ import annotations

import signal
import sqlite3
from contextlib import closing

import pytest

from rag.ingest import BOUNDARIES
from rag.kb import KnowledgeBase
from rag.sentences import DB_NAME as SENTENCES_DB
from rag.vectorstore import TOKEN_CACHE_FILE
from tests.support.cli import run_rag
from tests.support.kb import make_settings

V1 = "The Orion-3 model was developed by Helix Labs. Helix Labs is headquartered in Busan."
V2 = "The Orion-4 model was developed by Quokka Dynamics. Quokka Dynamics is headquartered in Xanadu City."
KEEP = "Employees get 15 days of annual leave. The Atlas search service is owned by the Search Platform Team."

INGEST_BOUNDARIES = [b for b in BOUNDARIES if b.startswith("ingest:")]
DELETE_BOUNDARIES = [b for b in BOUNDARIES if b.startswith("delete:")]
COMMITTED_AT = ("ingest:commit", "ingest:drop-old")  # the new version is committed when these are reached


def token_doc_ids(kb: KnowledgeBase) -> set[str]:
    with closing(sqlite3.connect(kb.settings.data_dir / TOKEN_CACHE_FILE)) as conn:
        return {r[0] for r in conn.execute("SELECT DISTINCT doc_id FROM tokens")}


def sentence_doc_ids(kb: KnowledgeBase) -> set[str]:
    path = kb.settings.data_dir / SENTENCES_DB
    if not path.exists():
        return set()
    with closing(sqlite3.connect(path)) as conn:
        return {r[0] for r in conn.execute("SELECT DISTINCT doc_id FROM sentences")}


def assert_only_committed_parts(kb: KnowledgeBase) -> None:
    committed = {d.doc_id for d in kb.documents()}
    assert kb.vectors.doc_ids() == committed
    assert set(kb.graph.document_ids()) <= committed
    assert token_doc_ids(kb) <= committed
    assert sentence_doc_ids(kb) <= committed
    assert kb.registry.unfinished() == []
    assert kb.counts()["chunks"] == sum(d.n_chunks for d in kb.documents())


@pytest.fixture
def corpus(tmp_path, data_dir):
    """data_dir holding keep.md and notes.md (V1), ingested from the folder docs/ by this process."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "keep.md").write_text(KEEP, encoding="utf-8")
    (folder / "notes.md").write_text(V1, encoding="utf-8")
    with KnowledgeBase(make_settings(data_dir)) as kb:
        assert [r.status for r in kb.ingest_paths([folder])] == ["added", "added"]
    return folder


@pytest.mark.parametrize("boundary", INGEST_BOUNDARIES)
def test_kill_during_an_ingest_leaves_old_or_new_version_never_a_mix(corpus, data_dir, boundary):
    reader = KnowledgeBase(make_settings(data_dir))  # the app: open, BM25 built, before the crash
    tool = reader.tools()["vector"]
    assert tool.run("Orion-3 Helix Labs", 1)[0].source == "notes.md"
    v1_id = reader.documents()[-1].doc_id

    (corpus / "notes.md").write_text(V2, encoding="utf-8")  # an update of notes.md, killed mid-way
    crashed = run_rag(["ingest", str(corpus)], data_dir, RAG_FAULT_AT=boundary)
    assert crashed.returncode == -signal.SIGKILL, crashed.stdout + crashed.stderr

    committed = boundary in COMMITTED_AT
    visible = {d.source: d.doc_id for d in reader.documents()}
    assert set(visible) == {"keep.md", "notes.md"}
    assert (visible["notes.md"] != v1_id) == committed
    # the reader, without any repair: only chunks of committed documents, never the other version's
    hits = tool.run("Orion-4 Quokka Dynamics Xanadu", 3) + tool.run("Orion-3 Helix Labs Busan", 3)
    assert {h.doc_id for h in hits} <= set(visible.values())
    assert all(h.text for h in hits)
    assert any("Quokka" in h.text for h in hits) == committed
    assert any("Helix" in h.text for h in hits) != committed
    facts = reader.tools()["graph"].run("Who developed Orion-4 and Orion-3?", 10)
    assert {f.doc_id for f in facts} <= set(visible.values())  # the graph route: committed documents only
    reader.close()

    with KnowledgeBase(make_settings(data_dir)) as kb:  # the next start repairs
        assert_only_committed_parts(kb)
        again = kb.ingest_paths([corpus])
        assert [r.status for r in again] == ["unchanged", "unchanged" if committed else "replaced"]
        assert_only_committed_parts(kb)
        assert [d.source for d in kb.documents()] == ["keep.md", "notes.md"]
        assert "Quokka" in kb.tools()["vector"].run("Quokka Dynamics", 1)[0].text


@pytest.mark.parametrize("boundary", DELETE_BOUNDARIES)
def test_kill_during_a_delete_hides_the_document_at_once_and_repair_finishes_it(corpus, data_dir, boundary):
    reader = KnowledgeBase(make_settings(data_dir))
    tool = reader.tools()["vector"]
    notes = next(d for d in reader.documents() if d.source == "notes.md")
    assert tool.run("Orion-3 Helix Labs", 1)[0].doc_id == notes.doc_id

    crashed = run_rag(["delete", notes.doc_id], data_dir, RAG_FAULT_AT=boundary)
    assert crashed.returncode == -signal.SIGKILL, crashed.stdout + crashed.stderr

    # `docs` says it is gone, and so does every answer (before: ask still answered from the deleted text)
    assert [d.source for d in reader.documents()] == ["keep.md"]
    assert all(h.doc_id != notes.doc_id for h in tool.run("Orion-3 Helix Labs Busan", 3))
    assert all(f.doc_id != notes.doc_id for f in reader.tools()["graph"].run("Who developed Orion-3?", 10))
    reader.close()

    repaired = run_rag(["repair"], data_dir)
    assert repaired.returncode == 0 and "1 interrupted delete(s) finished" in repaired.stdout, repaired.stdout
    with KnowledgeBase(make_settings(data_dir)) as kb:
        assert_only_committed_parts(kb)
        assert notes.doc_id not in token_doc_ids(kb)


def test_repair_sweeps_chunks_and_facts_of_documents_the_registry_never_held(corpus, data_dir):
    """What a crash on the former code left: parts written with no registry row at all."""
    import numpy as np

    from rag.sentences import Unit, store_for
    from rag.types import Chunk, Entity, Relation

    with KnowledgeBase(make_settings(data_dir)) as kb:
        vec = kb.embedder.embed_documents(["Ghost text about Zorblax."])
        kb.vectors.add_chunks([Chunk("ghost00000000000", "ghost.md", 0, "Ghost text about Zorblax.")], vec)
        kb.graph.upsert("ghost00000000000", [Entity("Zorblax")],
                        [Relation("Zorblax", "related_to", "Helix Labs", "Ghost text.", "ghost00000000000",
                                  "ghost00000000000:0", "ghost.md")])
        store_for(data_dir).write([("ghost00000000000:0", "ghost00000000000", "Ghost text about Zorblax.",
                                    [Unit("", "Ghost text about Zorblax.")], np.array(vec, dtype=np.float32))],
                                  kb.embedder.name)
        assert all("Zorblax" not in h.text for h in kb.tools()["vector"].run("Zorblax", 3))  # never retrieved
        assert all(f.doc_id != "ghost00000000000" for f in kb.tools()["graph"].run("What is Zorblax related to?", 5))
    report = run_rag(["repair"], data_dir)
    assert report.returncode == 0, report.stderr
    assert "1 chunk(s) of unregistered documents removed" in report.stdout
    assert "graph facts of 1 unregistered document(s) removed" in report.stdout
    assert "sentence vectors of 1 unregistered document(s) removed" in report.stdout
    with KnowledgeBase(make_settings(data_dir)) as kb:
        assert_only_committed_parts(kb)
        assert "Zorblax" not in kb.known_entities()
    assert "nothing to repair" in run_rag(["repair"], data_dir).stdout
