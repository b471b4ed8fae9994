"""Issue 9: the BM25 side follows ingests and deletes incrementally, and a deleted document's words leave its file.

Before: every change rebuilt the BM25 index from every chunk (13 s for the first question after an ingest into a
100k-chunk collection, see bench/bench_retrieval.py), and a deleted document's tokens stayed in bm25_tokens.sqlite3.
"""
from __future__ import annotations

import bm25s
import numpy as np
import pytest

from rag.textutil import tokenize
from rag.tools.vector import _Bm25Index
from rag.vectorstore import TOKEN_CACHE_FILE
from tests.support.kb import build_kb

DOCS = {
    "orion.md": "The Orion-3 model was developed by Helix Labs. Orion-3 uses a reranker for search.",
    "helix.txt": "Helix Labs is headquartered in Busan. Helix Labs was founded in 2020 by Jane Doe.",
    "leave.md": "Employees get 15 days of annual leave. Unused leave expires after two years.",
}
SECRET = "The Zorblaxian launch code is quuxfrobnicate, kept in Xylophonia."


def test_incremental_bm25_equals_bm25s_over_the_committed_chunks(tmp_path):
    kb = build_kb(tmp_path / "kb", DOCS)
    tool = kb.tools()["vector"]
    tool.run("Helix Labs", 2)
    assert tool.last_update["kind"] == "full"
    added = kb.ingest_bytes("secret.md", SECRET.encode())
    leave = next(d for d in kb.documents() if d.source == "leave.md")
    kb.delete(leave.doc_id)
    tool.run("Helix Labs", 2)
    assert tool.last_update == {"kind": "incremental", "removed": 1, "added": 1, "chunks_added": added.n_chunks}

    index = tool._bm25()
    live = [c for c in index.chunks if c.doc_id in kb.committed_chunks()]
    assert sorted(c.chunk_id for c in live) == sorted(c.chunk_id for c in kb.vectors.all_chunks())
    oracle = bm25s.BM25()
    oracle.index([tokenize(c.text) for c in live], show_progress=False)
    rows = [index.chunks.index(c) for c in live]
    for query in ("Helix Labs Busan", "Orion-3 reranker", "annual leave", "quuxfrobnicate launch code"):
        tokens = tokenize(query)
        expected = oracle.get_scores(tokens) if any(t in oracle.vocab_dict for t in tokens) else np.zeros(len(live))
        assert np.allclose(index.scores(tokens)[rows], expected, atol=1e-5), query
    assert all(h.doc_id != leave.doc_id for h in tool.run("annual leave", 4))
    kb.close()


def test_bulk_build_removals_and_compaction_equal_bm25s_and_a_fresh_index():
    from rag.types import Chunk

    chunks = [Chunk(f"d{i // 2}", "s", i % 2, f"word{i % 7} common" + " extra" * (i % 5)) for i in range(3000)]
    index = _Bm25Index(chunks, [c.text.split() for c in chunks])  # a bulk (numpy) build
    oracle = bm25s.BM25()
    oracle.index([c.text.split() for c in chunks], show_progress=False)
    assert np.allclose(index.scores(["word3", "extra", "extra"]), oracle.get_scores(["word3", "extra", "extra"]),
                       atol=1e-5)
    for d in range(0, 1200):
        index.remove_document(f"d{d}")
    # when the dead rows outnumbered the live ones they were dropped (once: 1502 dead of 3000)
    assert len(index) == 600 and len(index.chunks) == 1498
    fresh = _Bm25Index(chunks[2400:], [c.text.split() for c in chunks[2400:]])
    rows = [i for i, c in enumerate(index.chunks) if int(c.doc_id[1:]) >= 1200]
    assert [index.chunks[i].chunk_id for i in rows] == [c.chunk_id for c in fresh.chunks]
    assert np.allclose(index.scores(["word3", "common"])[rows], fresh.scores(["word3", "common"]))
    assert not index.scores(["word3", "common"])[[i for i in range(1498) if i not in set(rows)]].any()


@pytest.mark.parametrize("how", ["delete", "replace"])
def test_a_deleted_documents_words_leave_the_bm25_token_file(tmp_path, how):
    kb = build_kb(tmp_path / "kb", {"keep.md": DOCS["leave.md"]})
    secret = kb.ingest_bytes("secret.md", SECRET.encode())
    kb.tools()["vector"].run("quuxfrobnicate", 1)  # read back through the index too
    files = [kb.settings.data_dir / TOKEN_CACHE_FILE, kb.settings.data_dir / (TOKEN_CACHE_FILE + "-wal"),
             kb.settings.data_dir / "graph.json"]
    assert b"quuxfrobnicate" in b"".join(f.read_bytes() for f in files if f.exists())
    if how == "delete":
        assert kb.delete(secret.doc_id)
    else:
        assert kb.ingest_bytes("secret.md", b"Nothing to see here any more.", replace=True).status == "replaced"
    on_disk = b"".join(f.read_bytes() for f in files if f.exists())
    assert b"quuxfrobnicate" not in on_disk and b"Zorblaxian" not in on_disk
    assert "quuxfrob" not in " ".join(c.text for c in kb.vectors.all_chunks())
    kb.close()
