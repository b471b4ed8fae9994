"""Issue 9, cases 4 and 5: several processes on one data directory.

Case 4: two `rag ingest` processes at once both reported every file, yet some documents' relations never reached
graph.json (last writer wins). Now one process writes at a time (``rag.ingest.WriterLock``); a writer that cannot
get the lock in time says which process holds it and writes nothing.

Case 5: a long-lived KnowledgeBase (the app) and a CLI ingest / delete in its data directory. Before, every question
then failed with `Error finding id`, or returned a ghost hit with empty text, until a restart: the app's Chroma
client kept its own stale index. Now the app notices the registry's revision moved and reopens; the BM25 index
catches up incrementally.
"""
from __future__ import annotations

import json
import os
import time

import numpy as np

from rag.kb import KnowledgeBase
from rag.types import Chunk
from tests.support.cli import run_rag, start_rag
from tests.support.kb import make_settings

WORDS = ["Amber", "Basalt", "Cobalt", "Dune", "Ember", "Fjord", "Garnet", "Harbor", "Indigo", "Jasper", "Kelp",
         "Lumen", "Marble", "Nimbus", "Onyx", "Pebble"]


def write_folder(folder, names):
    folder.mkdir()
    for word in names:
        (folder / f"{word.lower()}.md").write_text(
            f"The {word}-7 model was developed by {word} Labs. {word} Labs is headquartered in {word}ville.",
            encoding="utf-8")


def test_two_concurrent_ingests_keep_every_documents_facts(tmp_path, data_dir):
    write_folder(tmp_path / "a", WORDS[:8])
    write_folder(tmp_path / "b", WORDS[8:])
    procs = [start_rag(["ingest", str(tmp_path / name)], data_dir) for name in ("a", "b")]
    outputs = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, outputs):
        assert p.returncode == 0, out + err
        assert "8 of 8 file(s) ingested" in out
    with KnowledgeBase(make_settings(data_dir)) as kb:
        docs = kb.documents()
        assert len(docs) == 16
        relations = json.loads((data_dir / "graph.json").read_text(encoding="utf-8"))["relations"]
        assert {r["doc_id"] for r in relations} == {d.doc_id for d in docs}  # no document lost its facts
        triples = {(r["source"], r["predicate"], r["target"]) for r in relations}
        assert {(f"{w}-7", "developed_by", f"{w} Labs") for w in WORDS} <= triples
        assert kb.vectors.doc_ids() == {d.doc_id for d in docs}


def test_a_writer_that_cannot_get_the_lock_names_the_holder_and_writes_nothing(tmp_path, data_dir):
    write_folder(tmp_path / "a", WORDS[:1])
    with KnowledgeBase(make_settings(data_dir)) as kb:
        revision = kb.revision()
        with kb.writer():  # this process is writing (as a long ingest would be)
            blocked = run_rag(["ingest", str(tmp_path / "a")], data_dir, RAG_INGEST_LOCK_WAIT_S="1")
        assert blocked.returncode == 1, blocked.stdout + blocked.stderr
        assert f"another ingest is running in this data directory (pid {os.getpid()})" in blocked.stdout
        assert kb.documents() == [] and kb.registry.unfinished() == [] and kb.revision() == revision
        assert kb.vectors.count() == 0
        # with the lock free the same command goes through
        assert run_rag(["ingest", str(tmp_path / "a")], data_dir).returncode == 0
        assert [d.source for d in kb.documents()] == ["amber.md"]


def test_a_second_writer_waits_for_the_first_and_then_writes(tmp_path, data_dir):
    write_folder(tmp_path / "a", WORDS[:1])
    with KnowledgeBase(make_settings(data_dir)) as kb:
        with kb.writer():
            proc = start_rag(["ingest", str(tmp_path / "a")], data_dir)
            time.sleep(20)  # longer than the process needs to parse and embed: it is waiting for the lock now
            assert proc.poll() is None and kb.documents() == [] and kb.registry.unfinished() == []
        out, err = proc.communicate(timeout=300)  # the lock is free: it writes now
        assert proc.returncode == 0 and "1 of 1 file(s) ingested" in out, out + err
        assert [d.source for d in kb.documents()] == ["amber.md"]


def _bulk(kb: KnowledgeBase, n_docs: int, per_doc: int, dim: int, seed: int = 3) -> None:
    """``n_docs`` committed documents of synthetic chunks with random unit vectors (embedding hundreds of chunks
    for real would take minutes): enough for Chroma to build its on-disk index, which is what goes stale."""
    rng = np.random.default_rng(seed)
    for d in range(n_docs):
        doc_id = f"bulk{d:012d}"
        chunks = [Chunk(doc_id, f"bulk-{d}.md", i, f"filler record {d}-{i} about logistics") for i in range(per_doc)]
        vecs = rng.normal(size=(per_doc, dim))
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        kb.vectors.add_chunks(chunks, vecs.tolist())
        kb.registry.commit(dict(doc_id=doc_id, source=f"bulk-{d}.md", n_chunks=per_doc, n_chars=100, n_entities=0,
                                n_relations=0, embedder=kb.embedder.name, ingested_at="2026-01-01T00:00:00",
                                origin=""), [])


def test_a_long_lived_reader_sees_cli_ingests_and_deletes_without_errors_or_ghosts(tmp_path, data_dir):
    app = KnowledgeBase(make_settings(data_dir))
    first = app.ingest_bytes("zephyr.md", b"The Zephyr-5 rocket engine was developed by Aster Propulsion.")
    _bulk(app, n_docs=6, per_doc=100, dim=app.embedder.dim)
    tool = app.tools()["vector"]
    assert tool.run("Zephyr-5 rocket engine", 1)[0].doc_id == first.doc_id  # client open, index built

    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "quasar.md").write_text("The Quasar-9 telescope was built by Lyra Optics in Chile.",
                                                encoding="utf-8")
    added = run_rag(["ingest", str(tmp_path / "new")], data_dir)
    assert added.returncode == 0, added.stdout + added.stderr
    top = tool.run("Quasar-9 telescope Lyra Optics", 1)[0]
    assert top.source == "quasar.md" and top.metadata["dense_rank"] == 1  # found by the dense side too
    assert tool.last_update == {"kind": "incremental", "removed": 0, "added": 1, "chunks_added": 1}

    deleted = run_rag(["delete", first.doc_id], data_dir)
    assert deleted.returncode == 0, deleted.stdout + deleted.stderr
    started = time.perf_counter()
    hits = tool.run("Zephyr-5 rocket engine Aster Propulsion", 10)
    assert time.perf_counter() - started < 10
    assert hits and all(h.doc_id != first.doc_id and h.text for h in hits)  # no ghost, no "Error finding id"
    assert app.get_chunk(f"{first.doc_id}:0") is None and app.chunks(first.doc_id) == []
    assert [d.source for d in app.documents()].count("zephyr.md") == 0
    assert app.counts()["chunks"] == 601
    app.close()
