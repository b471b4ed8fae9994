"""The Neo4j graph store against the real test Neo4j (scripts/test.sh starts it).

It must answer exactly like the embedded store on the same operations, write a document's facts in one
transaction, store any text literally (every query is parametrized), and fail with messages that say
what to do. The shared behavioural suite is tests/test_graphstore.py; this file covers what is
specific to Neo4j.
"""
from __future__ import annotations

import random

import pytest

from rag.config import Settings
from rag.graphstore import open_graph_store
from rag.graphstore.base import entity_key
from rag.graphstore.embedded import EmbeddedGraphStore
from rag.graphstore.neo4j_store import BATCH_SIZE, Neo4jGraphStore
from rag.neo4j_local import free_port
from rag.types import Entity, RagError, Relation, ToolUnavailable
from tests.support.neo4j import admin_driver, neo4j_overrides

# Names that would break a query built by string formatting, plus Unicode and whitespace variants that
# entity_key() must fold together.
NAMES = [
    "Nova-7", "nova-7", "Hanbit Labs", "Hanbit  Labs", "한빛연구소", "한빛", "Kim Ji-woo", "AI", "ＡＩ", "Seoul",
    "Orion", "Orion-2", "orion_x", "Busan Plant", "A", 'x"}) MATCH (n) DETACH DELETE n //', "O'Brien & Co",
    "`Entity`", "$doc_id", "{key: 1}",
]
PREDICATES = ["built", "located_in", "owns", "leads", "related_to"]
TYPES = ["concept", "org", "person", "model"]
SEARCH_TEXTS = [
    "Nova-7 was built by Hanbit Labs in Seoul", "nova", "한빛연구소의 AI 모델", "ai", "x", "Orion-2 and orion_x",
    "Who is O'Brien & Co?", 'x"}) MATCH (n) DETACH DELETE n //', "", "   ",
]


@pytest.fixture(scope="module")
def neo4j_settings(tmp_path_factory) -> Settings:
    return Settings.from_env(data_dir_override=tmp_path_factory.mktemp("neo4j-store"), **neo4j_overrides())


@pytest.fixture(scope="module")
def shared_store(neo4j_settings):
    store = Neo4jGraphStore(neo4j_settings)
    yield store
    store.reset()
    store.close()


@pytest.fixture
def store(shared_store):
    shared_store.reset()
    return shared_store


def _random_document(rnd: random.Random, doc_id: str) -> tuple[list[Entity], list[Relation]]:
    entities = [Entity(rnd.choice(NAMES), rnd.choice(TYPES)) for _ in range(rnd.randint(0, 5))]
    relations = [
        Relation(rnd.choice(NAMES), rnd.choice(PREDICATES), rnd.choice(NAMES), f"evidence {doc_id} {j}: \"quoted\" 'x'",
                 doc_id, f"{doc_id}:{rnd.randint(0, 2)}", f"{doc_id}.md")
        for j in range(rnd.randint(0, 8))
    ]
    return entities, relations


def _assert_same_reads(embedded: EmbeddedGraphStore, neo4j: Neo4jGraphStore, when: str) -> None:
    assert neo4j.counts() == embedded.counts(), when
    assert neo4j.entity_names() == embedded.entity_names(), when
    for text in SEARCH_TEXTS:
        for limit in (2, 10):
            assert neo4j.search_entities(text, limit) == embedded.search_entities(text, limit), (when, text, limit)
    for seeds in (["Nova-7"], ["Seoul", "AI"], ["한빛연구소", "Orion"], ['x"}) MATCH (n) DETACH DELETE n //'],
                  ["not an entity"], []):
        for hops in (1, 2, 3):
            for limit in (1, 5, 50):
                assert neo4j.expand(seeds, hops, limit) == embedded.expand(seeds, hops, limit), (when, seeds, hops)
        if seeds:
            for hops in (1, 2):
                assert neo4j.neighbourhood(seeds[0], hops) == embedded.neighbourhood(seeds[0], hops), (when, seeds)


@pytest.mark.neo4j
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_answers_exactly_like_the_embedded_store(store, tmp_path, seed):
    rnd = random.Random(seed)
    embedded = EmbeddedGraphStore(tmp_path / "graph.json")
    docs = [f"doc{i}" for i in range(6)]
    written = {}
    for doc in docs:
        written[doc] = _random_document(rnd, doc)
        for backend in (embedded, store):
            backend.upsert(doc, *written[doc])
    _assert_same_reads(embedded, store, "after upserts")

    for backend in (embedded, store):  # the same document again: nothing duplicated
        backend.upsert(docs[1], *written[docs[1]])
    _assert_same_reads(embedded, store, "after upserting a document again")

    for doc in rnd.sample(docs, 3):
        for backend in (embedded, store):
            backend.delete_document(doc)
        _assert_same_reads(embedded, store, f"after deleting {doc}")

    for backend in (embedded, store):
        backend.reset()
    assert store.counts() == {"entities": 0, "relations": 0}


@pytest.mark.neo4j
def test_text_that_looks_like_cypher_is_stored_literally(store):
    sneaky = 'x"}) MATCH (n) DETACH DELETE n //'
    doc_id = "doc'\"`$x"
    relations = [Relation(sneaky, "owns", "`Entity`", "evidence with $doc_id and {key: 1}", doc_id, f"{doc_id}:0", "a.md"),
                 Relation("O'Brien & Co", "leads", sneaky, "O'Brien leads it.", doc_id, f"{doc_id}:1", "a.md")]
    store.upsert(doc_id, [Entity("{key: 1}", "concept")], relations)

    assert store.counts() == {"entities": 4, "relations": 2}
    assert set(store.entity_names()) == {sneaky, "`Entity`", "O'Brien & Co", "{key: 1}"}
    assert store.search_entities(f"what does {sneaky} own?") == [sneaky]
    found = store.expand([sneaky], hops=1)
    assert sorted((r.source, r.predicate, r.target, r.evidence) for r, _ in found) == sorted(
        (r.source, r.predicate, r.target, r.evidence) for r in relations)
    store.delete_document(doc_id)
    assert store.counts() == {"entities": 0, "relations": 0}


@pytest.mark.neo4j
def test_a_document_is_written_in_one_transaction(store):
    """A write that Neo4j rejects half-way (after the entities and the first relation batch went in) leaves
    nothing of the document behind."""
    store.upsert("kept", [Entity("Kept Entity", "org")],
                 [Relation("Kept Entity", "owns", "Kept Product", "Kept Entity owns Kept Product.", "kept", "kept:0")])
    before = (store.counts(), store.entity_names())

    n = BATCH_SIZE + 100
    relations = [Relation(f"E{i}", "related_to", f"E{i + 1}", f"E{i} is next to E{i + 1}.", "broken", "broken:0")
                 for i in range(n)]
    # a map is not a valid property value: Neo4j rejects the second relation batch, inside the transaction
    relations[BATCH_SIZE + 50].evidence = {"not": "a string"}  # type: ignore[assignment]
    with pytest.raises(RagError, match="failed"):
        store.upsert("broken", [Entity("E0", "concept")], relations)

    assert (store.counts(), store.entity_names()) == before
    with admin_driver() as driver:
        records, _, _ = driver.execute_query("MATCH (d:Document {doc_id: $d}) RETURN count(d) AS n", d="broken")
    assert records[0]["n"] == 0


@pytest.mark.neo4j
def test_large_documents_go_in_batches(store):
    n = 2 * BATCH_SIZE + 37
    relations = [Relation(f"Node {i}", "related_to", f"Node {(i * 7 + 1) % n}", f"fact {i}", "big", f"big:{i % 5}")
                 for i in range(n)]
    store.upsert("big", [Entity(f"Node {i}", "concept") for i in range(n)], relations)
    assert store.counts() == {"entities": n, "relations": n}
    assert len(store.expand(["Node 0"], hops=3, limit=10_000)) > 3
    store.delete_document("big")
    assert store.counts() == {"entities": 0, "relations": 0}


@pytest.mark.neo4j
def test_schema_has_the_uniqueness_constraint(store):
    with admin_driver() as driver:
        records, _, _ = driver.execute_query(
            "SHOW CONSTRAINTS YIELD type, labelsOrTypes, properties RETURN type, labelsOrTypes, properties")
    constraints = {(r["type"], tuple(r["labelsOrTypes"]), tuple(r["properties"])) for r in records}
    # unique per knowledge base (issue 9: several knowledge bases may share one Neo4j)
    assert ("UNIQUENESS", ("Entity",), ("kb_id", "key")) in constraints
    assert ("UNIQUENESS", ("Entity",), ("key",)) not in constraints
    # MERGE on the key: one node per normalised name, whatever spelling came first
    store.upsert("d", [Entity("Hanbit  Labs", "org"), Entity("hanbit labs", "concept")], [])
    assert store.entity_names() == ["Hanbit  Labs"]  # the first spelling seen is the display name
    assert entity_key("Hanbit  Labs") == "hanbit labs"


@pytest.mark.neo4j
def test_open_graph_store_picks_neo4j_when_the_uri_is_set(neo4j_settings, shared_store):
    store = open_graph_store(neo4j_settings)
    try:
        assert store.backend == "neo4j"
        assert isinstance(store.counts(), dict)
    finally:
        store.close()


@pytest.mark.neo4j
def test_wrong_password_is_reported_plainly(neo4j_settings):
    user = "rag_test_wrong_password"
    with admin_driver() as driver:  # a user of its own, so failed logins never lock out the suite's admin user
        driver.execute_query("CREATE USER $user IF NOT EXISTS SET PASSWORD $password CHANGE NOT REQUIRED",
                             user=user, password="the-right-password", database_="system")
    with pytest.raises(ToolUnavailable) as caught:
        Neo4jGraphStore(neo4j_settings.with_(neo4j_user=user, neo4j_password="a-wrong-password"))
    message = str(caught.value)
    assert f"refused the login of user '{user}'" in message and "NEO4J_PASSWORD" in message
    assert neo4j_settings.neo4j_uri in message and "a-wrong-password" not in message

    right = Neo4jGraphStore(neo4j_settings.with_(neo4j_user=user, neo4j_password="the-right-password"))
    try:
        assert "entities" in right.counts()
    finally:
        right.close()


def test_closed_port_is_reported_with_what_to_do(tmp_path):
    port = free_port()  # bound and released: nothing listens there
    settings = Settings.from_env(data_dir_override=tmp_path, neo4j_uri=f"bolt://127.0.0.1:{port}",
                                 neo4j_password="whatever-password")
    with pytest.raises(ToolUnavailable) as caught:
        Neo4jGraphStore(settings)
    message = str(caught.value)
    assert f"Neo4j at bolt://127.0.0.1:{port} is not reachable" in message
    assert "python -m rag neo4j start" in message and "unset NEO4J_URI" in message


@pytest.mark.parametrize("uri", ["http://127.0.0.1:7474", "127.0.0.1:7687", "bolt://127.0.0.1:notaport"])
def test_a_uri_that_is_not_bolt_is_refused(tmp_path, uri):
    settings = Settings.from_env(data_dir_override=tmp_path, neo4j_uri=uri, neo4j_password="whatever-password")
    with pytest.raises(RagError, match="NEO4J_URI"):
        Neo4jGraphStore(settings)
