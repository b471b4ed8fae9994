"""GraphStore conformance suite: every backend in ``BACKENDS`` must pass every test here.

A backend is one factory ``(tmp_path) -> GraphStore`` in ``BACKENDS``; the ``graph_store`` fixture
runs each test once per backend, starting from an empty store. To add Neo4j, register a factory
that skips when ``RAG_TEST_NEO4J_URI`` is unset (and fails when ``CI`` is set), e.g.::

    def _neo4j(tmp_path):
        uri = os.environ.get("RAG_TEST_NEO4J_URI")
        if not uri:
            ...skip / fail...
        from rag.graphstore.neo4j_store import Neo4jGraphStore
        return Neo4jGraphStore(make_settings(tmp_path, neo4j_uri=uri, ...))

    BACKENDS["neo4j"] = _neo4j
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pytest

from rag.graphstore.base import GraphStore
from rag.graphstore.embedded import EmbeddedGraphStore
from rag.types import Entity, Relation


def _embedded(tmp_path: Path) -> GraphStore:
    return EmbeddedGraphStore(tmp_path / "graph.json")


def _neo4j(tmp_path: Path) -> GraphStore:
    """The real Neo4j of the test run (skips without RAG_TEST_NEO4J_URI, fails under CI)."""
    from rag.config import Settings
    from rag.graphstore.neo4j_store import Neo4jGraphStore
    from tests.support.neo4j import neo4j_overrides

    return Neo4jGraphStore(Settings.from_env(data_dir_override=tmp_path, **neo4j_overrides()))


BACKENDS: dict[str, Callable[[Path], GraphStore]] = {
    "embedded": _embedded,
    "neo4j": _neo4j,
}


@pytest.fixture(params=sorted(BACKENDS))
def graph_store(request, tmp_path):
    store = BACKENDS[request.param](tmp_path)
    store.reset()
    yield store
    store.reset()
    store.close()


def rel(source: str, predicate: str, target: str, doc: str = "d1", chunk: int = 0, evidence: str | None = None,
        source_file: str | None = None) -> Relation:
    return Relation(source=source, predicate=predicate, target=target,
                    evidence=evidence or f"{source} {predicate} {target}.", doc_id=doc, chunk_id=f"{doc}:{chunk}",
                    source_file=source_file or f"{doc}.md")


ORION = rel("Orion-3", "developed_by", "Helix Labs", doc="d1", evidence="The Orion-3 model was developed by Helix Labs.",
            source_file="orion.md")
HELIX = rel("Helix Labs", "located_in", "Busan", doc="d2", evidence="Helix Labs is headquartered in Busan.",
            source_file="helix.txt")
BUSAN = rel("Busan", "part_of", "South Korea", doc="d3", evidence="Busan is part of South Korea.")
NOVA = rel("노바-7", "developed_by", "에이펙스 랩스", doc="d4", evidence="노바-7 모델은 에이펙스 랩스가 개발했다.")


def load_chain(store: GraphStore) -> None:
    store.upsert("d1", [Entity("Orion-3", "model"), Entity("Helix Labs", "org")], [ORION])
    store.upsert("d2", [Entity("Helix Labs", "org"), Entity("Busan")], [HELIX])
    store.upsert("d3", [Entity("Busan"), Entity("South Korea")], [BUSAN])


def triples(found) -> set[tuple[str, str, str, int]]:
    return {(r.source, r.predicate, r.target, hop) for r, hop in found}


def test_backend_implements_the_protocol(graph_store):
    assert isinstance(graph_store, GraphStore)
    assert graph_store.backend in ("embedded", "neo4j")
    assert graph_store.counts() == {"entities": 0, "relations": 0}


def test_upsert_adds_entities_and_relations_idempotently(graph_store):
    load_chain(graph_store)
    assert graph_store.counts() == {"entities": 4, "relations": 3}
    assert sorted(graph_store.entity_names()) == ["Busan", "Helix Labs", "Orion-3", "South Korea"]
    load_chain(graph_store)
    assert graph_store.counts() == {"entities": 4, "relations": 3}


def test_has_document_follows_upsert_and_delete(graph_store):
    assert not graph_store.has_document("d1")
    load_chain(graph_store)
    assert graph_store.has_document("d1") and graph_store.has_document("d3")
    assert not graph_store.has_document("d9")
    graph_store.delete_document("d1")
    assert not graph_store.has_document("d1") and graph_store.has_document("d2")


def test_entities_match_case_insensitively_and_keep_the_first_display_name(graph_store):
    graph_store.upsert("d1", [Entity("Helix Labs", "org")], [])
    graph_store.upsert("d2", [Entity("HELIX  labs")], [rel("helix labs", "located_in", "Busan", doc="d2")])
    assert graph_store.counts()["entities"] == 2
    assert "Helix Labs" in graph_store.entity_names()
    [(found, hop)] = graph_store.expand(["HeLiX LaBs"], hops=1)
    assert hop == 1 and found.target == "Busan"


def test_relations_keep_their_evidence_and_provenance(graph_store):
    load_chain(graph_store)
    [(found, hop)] = [(r, h) for r, h in graph_store.expand(["Orion-3"], hops=1)]
    assert hop == 1
    assert (found.source, found.predicate, found.target) == ("Orion-3", "developed_by", "Helix Labs")
    assert found.evidence == "The Orion-3 model was developed by Helix Labs."
    assert (found.doc_id, found.chunk_id, found.source_file) == ("d1", "d1:0", "orion.md")


def test_expand_walks_hops_in_both_directions(graph_store):
    load_chain(graph_store)
    assert triples(graph_store.expand(["Orion-3"], hops=1)) == {("Orion-3", "developed_by", "Helix Labs", 1)}
    assert triples(graph_store.expand(["Orion-3"], hops=2)) == {
        ("Orion-3", "developed_by", "Helix Labs", 1), ("Helix Labs", "located_in", "Busan", 2)}
    # from the middle, incoming and outgoing relations are both one hop away
    assert triples(graph_store.expand(["Helix Labs"], hops=1)) == {
        ("Orion-3", "developed_by", "Helix Labs", 1), ("Helix Labs", "located_in", "Busan", 1)}
    assert triples(graph_store.expand(["South Korea"], hops=3)) == {
        ("Busan", "part_of", "South Korea", 1), ("Helix Labs", "located_in", "Busan", 2),
        ("Orion-3", "developed_by", "Helix Labs", 3)}
    assert graph_store.expand(["Unknown"], hops=2) == []
    assert graph_store.expand([], hops=2) == []


def test_expand_respects_the_limit_nearest_first(graph_store):
    load_chain(graph_store)
    found = graph_store.expand(["Orion-3"], hops=3, limit=2)
    assert len(found) == 2
    assert [hop for _, hop in found] == [1, 2]


def test_each_relation_is_reported_once_at_its_nearest_hop(graph_store):
    load_chain(graph_store)
    found = graph_store.expand(["Orion-3", "Busan"], hops=2)
    assert sorted(hop for _, hop in found) == [1, 1, 1]
    assert len({(r.source, r.predicate, r.target) for r, _ in found}) == 3


def test_delete_document_removes_its_relations_and_orphaned_entities(graph_store):
    load_chain(graph_store)
    graph_store.delete_document("d2")
    assert graph_store.counts() == {"entities": 4, "relations": 2}  # Helix Labs and Busan are still mentioned
    assert triples(graph_store.expand(["Orion-3"], hops=2)) == {("Orion-3", "developed_by", "Helix Labs", 1)}
    graph_store.delete_document("d3")
    assert sorted(graph_store.entity_names()) == ["Helix Labs", "Orion-3"]
    graph_store.delete_document("d1")
    assert graph_store.counts() == {"entities": 0, "relations": 0}
    graph_store.delete_document("never-there")


def test_search_entities_finds_names_in_text_and_names_containing_text(graph_store):
    load_chain(graph_store)
    graph_store.upsert("d4", [Entity("노바-7", "model"), Entity("에이펙스 랩스", "org")], [NOVA])
    assert set(graph_store.search_entities("Where is the company that developed ORION-3?")) == {"Orion-3"}
    assert set(graph_store.search_entities("helix labs and busan")) == {"Helix Labs", "Busan"}
    assert graph_store.search_entities("에이펙스 랩스가 만든 모델은?") == ["에이펙스 랩스"]
    assert "Helix Labs" in graph_store.search_entities("Helix")  # a name containing the text
    assert graph_store.search_entities("nothing known here") == []
    assert len(graph_store.search_entities("Orion-3 Helix Labs Busan South Korea", limit=2)) == 2


SEARCH_CASES = ["Nuri-LM을 개발한 조직은?", "nuri and nuri_lm", "NURI-lm", "uri", "Helix", "에이펙스", "에이펙스 랩스가 만든 모델",
                "Orion-3 Helix Labs Busan South Korea", "x", "B", "阿里巴巴的总部", "  ", "lm"]


def test_search_entities_is_the_shared_rank_entity_matches_rule(graph_store):
    from rag.graphstore.base import entity_key, rank_entity_matches

    load_chain(graph_store)
    graph_store.upsert("d4", [Entity("노바-7"), Entity("에이펙스 랩스"), Entity("Nuri"), Entity("Nuri-LM"), Entity("B"),
                              Entity("阿里巴巴"), Entity("LM")], [NOVA])
    candidates = [(entity_key(name), name) for name in graph_store.entity_names()]
    for text in SEARCH_CASES:
        for limit in (1, 3, 10):
            assert graph_store.search_entities(text, limit=limit) == rank_entity_matches(text, candidates, limit), text


def test_embedded_store_has_no_copy_of_the_matching_rule():
    import inspect

    from rag.graphstore import embedded

    assert "rank_entity_matches" in inspect.getsource(embedded.EmbeddedGraphStore.search_entities)
    assert not hasattr(embedded, "_LATIN_RE") and "re.escape" not in inspect.getsource(embedded)


def test_neighbourhood_returns_entities_and_relations_for_drawing(graph_store):
    load_chain(graph_store)
    entities, relations = graph_store.neighbourhood("Helix Labs", hops=1)
    assert {e.name for e in entities} == {"Helix Labs", "Orion-3", "Busan"}
    assert {(r.source, r.target) for r in relations} == {("Orion-3", "Helix Labs"), ("Helix Labs", "Busan")}
    types = {e.name: e.type for e in entities}
    assert types["Helix Labs"] == "org" and types["Orion-3"] == "model"
    assert graph_store.neighbourhood("Unknown") == ([], [])


def test_reset_empties_the_store(graph_store):
    load_chain(graph_store)
    graph_store.reset()
    assert graph_store.counts() == {"entities": 0, "relations": 0}
    assert graph_store.entity_names() == []


# ---- embedded backend only ------------------------------------------------------
def test_embedded_store_persists_atomically_and_reloads(tmp_path):
    folder = tmp_path / "store"
    store = EmbeddedGraphStore(folder / "graph.json")
    load_chain(store)
    assert [p.name for p in folder.iterdir()] == ["graph.json"]  # no temp files left behind
    data = json.loads((folder / "graph.json").read_text(encoding="utf-8"))
    assert len(data["relations"]) == 3 and data["relations"][0]["evidence"]
    reopened = EmbeddedGraphStore(folder / "graph.json")
    assert reopened.counts() == {"entities": 4, "relations": 3}
    assert triples(reopened.expand(["Orion-3"], hops=2)) == triples(store.expand(["Orion-3"], hops=2))


def test_embedded_store_sees_changes_written_by_another_instance(tmp_path):
    reader = EmbeddedGraphStore(tmp_path / "graph.json")
    writer = EmbeddedGraphStore(tmp_path / "graph.json")
    load_chain(writer)
    assert reader.counts() == {"entities": 4, "relations": 3}


def test_embedded_search_does_not_match_inside_hyphenated_names(tmp_path):
    store = EmbeddedGraphStore(tmp_path / "graph.json")
    store.upsert("d1", [Entity("Nuri"), Entity("Nuri-LM")], [])
    assert store.search_entities("Nuri-LM을 개발한 조직은?") == ["Nuri-LM"]
    assert store.search_entities("the Nuri chatbot") == ["Nuri"]
