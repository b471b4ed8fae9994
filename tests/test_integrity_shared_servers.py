"""Issue 9, case 3 and the shared Chroma server: knowledge bases that share a server stay apart.

Before: two data directories on one Neo4j shared one graph — answers in B cited A's documents, and `reset` in B
wiped A's entities and relations. Now every node and relation carries the knowledge-base id (one per data
directory, or RAG_KB_ID), every query filters on it and `reset` deletes only its own. On a Chroma server every
collection name starts with the knowledge-base id, and reset drops only its own collections.
"""
from __future__ import annotations

import pytest

from rag.kb import KnowledgeBase
from tests.support.kb import make_settings
from tests.support.neo4j import admin_driver, neo4j_overrides
from tests.test_ingest import chroma_server  # noqa: F401  (the one real `chroma run` fixture; fails under CI if missing)

TEXT_A = "The Orion-3 model was developed by Helix Labs. Helix Labs is headquartered in Busan."
TEXT_B = "The Vega-2 model was developed by Nova Works. Nova Works is headquartered in Ulsan."
SHARED = "Helix Labs partners with Nova Works."  # an entity name both knowledge bases know


def _cypher(query: str, **params) -> list:
    with admin_driver() as driver:
        records, _, _ = driver.execute_query(query, params)
    return records


@pytest.mark.neo4j
@pytest.mark.integration
def test_two_data_dirs_on_one_neo4j_keep_their_graphs_apart(tmp_path):
    a = KnowledgeBase(make_settings(tmp_path / "a", **neo4j_overrides()))
    b = KnowledgeBase(make_settings(tmp_path / "b", **neo4j_overrides()))
    try:
        assert a.kb_id != b.kb_id
        assert a.ingest_bytes("a.md", (TEXT_A + " " + SHARED).encode()).status == "added"
        assert b.ingest_bytes("b.md", (TEXT_B + " " + SHARED).encode()).status == "added"
        names_a, names_b = set(a.known_entities()), set(b.known_entities())
        assert "Orion-3" in names_a and "Orion-3" not in names_b
        assert "Vega-2" in names_b and "Vega-2" not in names_a
        # the graph route of B never cites A's document, even through an entity both know
        facts = b.tools()["graph"].run("Who partners with Helix Labs, and where is it headquartered?", 10)
        assert facts and {(f.source, f.doc_id) for f in facts} == {("b.md", b.documents()[0].doc_id)}
        assert all(rel.doc_id != a.documents()[0].doc_id for rel, _ in b.graph.expand(["Helix Labs"], hops=2))
        # every node and relation written carries its knowledge base's id
        for kb in (a, b):
            n = _cypher("MATCH (n) WHERE (n:Entity OR n:Document) AND n.kb_id = $k RETURN count(n) AS n", k=kb.kb_id)
            assert n[0]["n"] > 0
            unscoped = _cypher("MATCH (n {kb_id: $k})-[r]-() WHERE r.kb_id IS NULL OR r.kb_id <> $k "
                               "RETURN count(r) AS n", k=kb.kb_id)
            assert unscoped[0]["n"] == 0  # every relation (REL and MENTIONS) carries it too
        counts_a = a.counts()
        assert counts_a["relations"] > 0
        b.reset()  # before: wiped A's entities and relations too
        assert b.counts() == {"documents": 0, "chunks": 0, "entities": 0, "relations": 0}
        assert a.counts() == counts_a
        assert "Orion-3" in a.known_entities()
    finally:
        a.reset()
        b.reset()
        a.close()
        b.close()


@pytest.mark.integration
def test_two_knowledge_bases_on_one_chroma_server_keep_their_chunks_apart(tmp_path, chroma_server):
    server = dict(chroma_host="127.0.0.1", chroma_port=chroma_server)
    a = KnowledgeBase(make_settings(tmp_path / "a", **server))
    b = KnowledgeBase(make_settings(tmp_path / "b", **server))
    try:
        a.ingest_bytes("a.md", TEXT_A.encode())
        b.ingest_bytes("b.md", TEXT_B.encode())
        assert a.vectors.name.startswith(f"{a.kb_id}-chunks-") and b.vectors.name.startswith(f"{b.kb_id}-chunks-")
        assert [h.source for h in a.tools()["vector"].run("Who developed Vega-2?", 5)] == ["a.md"]
        assert [h.source for h in b.tools()["vector"].run("Who developed Orion-3?", 5)] == ["b.md"]
        b.reset()
        assert b.counts()["chunks"] == 0
        assert a.counts()["chunks"] == 1 and a.tools()["vector"].run("Orion-3", 1)[0].source == "a.md"
    finally:
        a.close()
        b.close()


def test_rag_kb_id_names_the_knowledge_base(tmp_path, monkeypatch):
    with KnowledgeBase(make_settings(tmp_path / "a")) as kb:
        generated = kb.kb_id
    with KnowledgeBase(make_settings(tmp_path / "a")) as kb:
        assert kb.kb_id == generated  # one per data directory, kept in its registry
    monkeypatch.setenv("RAG_KB_ID", "team a/prod")
    with KnowledgeBase(make_settings(tmp_path / "a")) as kb:
        assert kb.kb_id == "team-a-prod"  # usable in Chroma collection names and Neo4j properties
