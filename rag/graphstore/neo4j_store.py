"""The Neo4j graph store (official ``neo4j`` driver); same behaviour as the embedded networkx store.

Model::

    (:Document {kb_id, doc_id})-[:MENTIONS {kb_id}]->(:Entity {kb_id, key, name, type})
    (:Entity)-[:REL {kb_id, id, predicate, source, target, evidence, doc_id, chunk_id, source_file}]->(:Entity)

``kb_id`` is the knowledge base's id (one per data directory, or ``RAG_KB_ID``): several knowledge bases can
share one Neo4j, every query matches on it, and ``reset`` deletes only its own nodes. ``key`` is
``entity_key(name)`` (unique per knowledge base); ``REL.id`` is ``relation_id(rel)``, so upserting the
same fact again overwrites it instead of duplicating it. The predicate is a property, not the
relationship type: relationship types cannot be query parameters, and every query here is a fixed
string with parameters — nothing is ever built from user or document text. Expansion is an
iterative breadth-first search (one parametrized query per hop), so not even the hop count is
formatted into Cypher. A document's writes happen in one transaction: all or nothing.
Only nodes labelled ``Entity`` / ``Document`` of this knowledge base are touched (``reset`` included), so the
store can share a database with other knowledge bases and other data. Nodes written before knowledge-base ids
existed have none: they are invisible here, and ingesting the files again restores their facts.
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Any, Iterator

from rag.config import Settings, redact_text, redact_url
from rag.graphstore import relation_id
from rag.graphstore.base import breadth_first, entity_key, rank_entity_matches
from rag.types import Entity, RagError, Relation, ToolUnavailable

BATCH_SIZE = 500  # rows per UNWIND statement (all statements of one document share one transaction)
CONNECT_TIMEOUT_S = 5.0
RETRY_TIME_S = 5.0  # how long the driver retries a transaction on transient errors before giving up
LOGIN_REFUSED_CODES = ("Neo.ClientError.Security.Unauthorized", "Neo.ClientError.Security.AuthenticationRateLimit",
                       "Neo.ClientError.Security.CredentialsExpired", "Neo.ClientError.Security.TokenExpired")
BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
START_HINT = "start one with `python -m rag neo4j start`, or unset NEO4J_URI to use the embedded graph store"

# The former single-property constraints would make two knowledge bases' entities of one name collide.
SCHEMA = (
    "DROP CONSTRAINT rag_entity_key IF EXISTS",
    "DROP CONSTRAINT rag_document_id IF EXISTS",
    "CREATE CONSTRAINT rag_entity_kb_key IF NOT EXISTS FOR (e:Entity) REQUIRE (e.kb_id, e.key) IS UNIQUE",
    "CREATE CONSTRAINT rag_document_kb_id IF NOT EXISTS FOR (d:Document) REQUIRE (d.kb_id, d.doc_id) IS UNIQUE",
    "CREATE INDEX rag_entity_kb IF NOT EXISTS FOR (e:Entity) ON (e.kb_id)",
    "CREATE INDEX rag_document_kb IF NOT EXISTS FOR (d:Document) ON (d.kb_id)",
    "CREATE INDEX rag_rel_id IF NOT EXISTS FOR ()-[r:REL]-() ON (r.id)",
    "CREATE INDEX rag_rel_doc IF NOT EXISTS FOR ()-[r:REL]-() ON (r.doc_id)",
    "CREATE INDEX rag_rel_kb IF NOT EXISTS FOR ()-[r:REL]-() ON (r.kb_id)",
)

MERGE_DOCUMENT = "MERGE (:Document {kb_id: $kb_id, doc_id: $doc_id})"
MERGE_ENTITIES = """
UNWIND $rows AS row
MERGE (e:Entity {kb_id: $kb_id, key: row.key})
  ON CREATE SET e.name = row.name, e.type = row.type
  ON MATCH SET e.type = CASE WHEN e.type = 'concept' AND row.type <> 'concept' THEN row.type ELSE e.type END
WITH e
MATCH (d:Document {kb_id: $kb_id, doc_id: $doc_id})
MERGE (d)-[:MENTIONS {kb_id: $kb_id}]->(e)
"""
MERGE_RELATIONS = """
UNWIND $rows AS row
MATCH (a:Entity {kb_id: $kb_id, key: row.source_key})
MATCH (b:Entity {kb_id: $kb_id, key: row.target_key})
MERGE (a)-[r:REL {kb_id: $kb_id, id: row.id}]->(b)
SET r.predicate = row.predicate, r.source = row.source, r.target = row.target, r.evidence = row.evidence,
    r.doc_id = row.doc_id, r.chunk_id = row.chunk_id, r.source_file = row.source_file
"""
DELETE_DOC_RELATIONS = "MATCH ()-[r:REL {kb_id: $kb_id, doc_id: $doc_id}]->() DELETE r"
MENTIONED_BY_DOC = "MATCH (:Document {kb_id: $kb_id, doc_id: $doc_id})-[:MENTIONS]->(e:Entity) RETURN e.key AS key"
DELETE_DOC_NODE = "MATCH (d:Document {kb_id: $kb_id, doc_id: $doc_id}) DETACH DELETE d"
# Entities no other document mentions any more (with whatever relations still touch them, as the embedded store).
DELETE_ORPHANS = """
UNWIND $keys AS k
MATCH (e:Entity {kb_id: $kb_id, key: k})
WHERE NOT (e)<-[:MENTIONS]-(:Document)
DETACH DELETE e
"""
RESET_BATCH = """
MATCH (n) WHERE (n:Entity OR n:Document) AND n.kb_id = $kb_id
WITH n LIMIT 10000
DETACH DELETE n
RETURN count(*) AS deleted
"""
HAS_DOCUMENT = "MATCH (d:Document {kb_id: $kb_id, doc_id: $doc_id}) RETURN count(d) > 0 AS found"
DOCUMENT_IDS = "MATCH (d:Document {kb_id: $kb_id}) RETURN d.doc_id AS doc_id"
ENTITY_NAMES = "MATCH (e:Entity {kb_id: $kb_id}) RETURN e.name AS name"
# Candidates for search_entities (a superset: names in the text or containing it); the exact rule, with word
# boundaries for Latin names, is rank_entity_matches, shared with the embedded store.
SEARCH_CANDIDATES = """
MATCH (e:Entity {kb_id: $kb_id})
WHERE size(e.key) >= 2 AND ($needle CONTAINS e.key OR (size($needle) >= 2 AND e.key CONTAINS $needle))
RETURN e.key AS key, e.name AS name
"""
EXISTING_KEYS = "MATCH (e:Entity {kb_id: $kb_id}) WHERE e.key IN $keys RETURN e.key AS key"
# One breadth-first hop: every relation touching an entity of the frontier, in either direction.
HOP = """
UNWIND $frontier AS k
MATCH (n:Entity {kb_id: $kb_id, key: k})-[r:REL {kb_id: $kb_id}]-(:Entity)
RETURN DISTINCT r.id AS id, startNode(r).key AS u, endNode(r).key AS v, properties(r) AS props
"""
ENTITIES_BY_KEY = ("MATCH (e:Entity {kb_id: $kb_id}) WHERE e.key IN $keys "
                   "RETURN e.key AS key, e.name AS name, e.type AS type")
COUNTS = """
MATCH (e:Entity {kb_id: $kb_id}) WITH count(e) AS entities
OPTIONAL MATCH ()-[r:REL {kb_id: $kb_id}]->()
RETURN entities, count(r) AS relations
"""
DEFAULT_KB_ID = "default"


def _neo4j():
    try:
        import neo4j
    except ImportError as exc:  # pragma: no cover - neo4j is in requirements.txt
        raise RagError("The neo4j driver is not installed: pip install neo4j (it is in requirements.txt).") from exc
    return neo4j


class Neo4jGraphStore:
    """``GraphStore`` on a Neo4j server. Raises ``ToolUnavailable`` (a ``RagError``) with a message that says
    what to do when the server cannot be reached or refuses the login — at construction and on any later call."""

    backend = "neo4j"

    def __init__(self, settings: Settings, kb_id: str | None = None) -> None:
        neo4j = _neo4j()
        self.kb_id = kb_id or DEFAULT_KB_ID
        if not settings.neo4j_uri:
            raise RagError("NEO4J_URI is not set: set it (e.g. bolt://127.0.0.1:7687) to use Neo4j.")
        self.uri = settings.neo4j_uri
        self.shown_uri = redact_url(self.uri)  # for messages: never a password from user:pass@host
        scheme = self.uri.split("://", 1)[0].lower() if "://" in self.uri else ""
        if scheme not in BOLT_SCHEMES:
            raise RagError(f"NEO4J_URI {self.shown_uri!r} is not a Bolt address: use bolt://HOST:7687 (or neo4j://, "
                           "bolt+s://, neo4j+s:// for TLS).")
        self.user = settings.neo4j_user
        self.database = settings.neo4j_database or None  # None: the server's default database
        auth = (settings.neo4j_user, settings.neo4j_password) if settings.neo4j_password is not None else None
        self._password_set = settings.neo4j_password is not None
        try:
            self._driver = neo4j.GraphDatabase.driver(
                self.uri, auth=auth, connection_timeout=CONNECT_TIMEOUT_S,
                connection_acquisition_timeout=CONNECT_TIMEOUT_S * 2, max_transaction_retry_time=RETRY_TIME_S,
                notifications_min_severity="OFF")
        except (neo4j.exceptions.ConfigurationError, ValueError) as exc:
            raise RagError(f"NEO4J_URI {self.shown_uri!r} is not a valid Neo4j address (use bolt://HOST:7687): "
                           f"{redact_text(str(exc))}") from exc
        try:
            self._driver.verify_connectivity()
            self._ensure_schema()
        except Exception as exc:
            self._driver.close()
            translated = self._translate(exc, None)
            if translated is exc:
                raise
            raise translated from exc

    # ---- plumbing ----------------------------------------------------------
    def _translate(self, exc: BaseException, action: str | None) -> BaseException:
        """A driver exception -> a RagError whose message says what happened and what to do.
        ``action``: what we were doing (None while connecting)."""
        errors = _neo4j().exceptions
        if isinstance(exc, RagError):
            return exc
        during = f" (while {action})" if action else ""
        login_refused = isinstance(exc, errors.AuthError) or (
            isinstance(exc, errors.Neo4jError) and getattr(exc, "code", None) in LOGIN_REFUSED_CODES)
        if login_refused:  # wrong credentials, or locked after too many wrong ones (AuthenticationRateLimit)
            what = ("no password was given: set NEO4J_PASSWORD" if not self._password_set
                    else "check NEO4J_USER and NEO4J_PASSWORD")
            return ToolUnavailable(f"Neo4j at {self.shown_uri} refused the login of user {self.user!r}{during}: {what}. "
                                   f"(Neo4j said: {_short(exc)})")
        if isinstance(exc, (errors.ServiceUnavailable, errors.SessionExpired, OSError)):
            return ToolUnavailable(f"Neo4j at {self.shown_uri} is not reachable{during}: {_short(exc)} — {START_HINT}.")
        if isinstance(exc, ValueError) and action is None:  # e.g. a port that is not a number
            return RagError(f"NEO4J_URI {self.shown_uri!r} is not a valid Neo4j address: {redact_text(str(exc))}")
        if isinstance(exc, errors.Neo4jError):
            return RagError(f"Neo4j at {self.shown_uri} failed{during}: {_short(exc)}")
        if isinstance(exc, errors.DriverError):
            return ToolUnavailable(f"Neo4j at {self.shown_uri} failed{during}: {type(exc).__name__}: {_short(exc)}")
        return exc

    @contextmanager
    def _errors(self, action: str) -> Iterator[None]:
        try:
            yield
        except Exception as exc:
            translated = self._translate(exc, action)
            if translated is exc:
                raise
            raise translated from exc

    def _read(self, query: str, **params: Any) -> list[Any]:
        neo4j = _neo4j()
        records, _, _ = self._driver.execute_query(query, {**params, "kb_id": self.kb_id}, database_=self.database,
                                                   routing_=neo4j.RoutingControl.READ)
        return records

    def _write(self, work) -> Any:
        with self._driver.session(database=self.database) as session:
            return session.execute_write(work)

    def _ensure_schema(self) -> None:
        for statement in SCHEMA:
            self._driver.execute_query(statement, database_=self.database)

    # ---- writes ------------------------------------------------------------
    def upsert(self, doc_id: str, entities: list[Entity], relations: list[Relation]) -> None:
        entity_rows = _entity_rows(entities, relations)
        relation_rows = [dict(id=relation_id(r), source_key=entity_key(r.source), target_key=entity_key(r.target),
                              predicate=r.predicate, source=r.source, target=r.target, evidence=r.evidence,
                              doc_id=r.doc_id, chunk_id=r.chunk_id, source_file=r.source_file)
                         for r in relations]
        if not entity_rows:
            return

        def work(tx) -> None:  # one transaction: the document's facts are written whole or not at all
            tx.run(MERGE_DOCUMENT, doc_id=doc_id, kb_id=self.kb_id).consume()
            for batch in _batches(entity_rows):
                tx.run(MERGE_ENTITIES, rows=batch, doc_id=doc_id, kb_id=self.kb_id).consume()
            for batch in _batches(relation_rows):
                tx.run(MERGE_RELATIONS, rows=batch, kb_id=self.kb_id).consume()

        with self._errors(f"writing the facts of document {doc_id}"):
            self._write(work)

    def delete_document(self, doc_id: str) -> None:
        def work(tx) -> None:
            kb_id = self.kb_id
            tx.run(DELETE_DOC_RELATIONS, doc_id=doc_id, kb_id=kb_id).consume()
            keys = [record["key"] for record in tx.run(MENTIONED_BY_DOC, doc_id=doc_id, kb_id=kb_id)]
            tx.run(DELETE_DOC_NODE, doc_id=doc_id, kb_id=kb_id).consume()
            tx.run(DELETE_ORPHANS, keys=keys, kb_id=kb_id).consume()

        with self._errors(f"deleting the facts of document {doc_id}"):
            self._write(work)

    def reset(self) -> None:
        with self._errors("deleting every entity and relation of this knowledge base"):
            while True:  # in slices, so a large graph does not need one huge transaction
                records, _, _ = self._driver.execute_query(RESET_BATCH, {"kb_id": self.kb_id},
                                                           database_=self.database)
                if not records or records[0]["deleted"] == 0:
                    break

    def close(self) -> None:
        self._driver.close()

    # ---- reads -------------------------------------------------------------
    def has_document(self, doc_id: str) -> bool:
        with self._errors(f"looking up document {doc_id}"):
            return bool(self._read(HAS_DOCUMENT, doc_id=doc_id)[0]["found"])

    def document_ids(self) -> list[str]:
        with self._errors("listing documents"):
            return sorted(record["doc_id"] for record in self._read(DOCUMENT_IDS))

    def entity_names(self) -> list[str]:
        with self._errors("listing entities"):
            return sorted(record["name"] for record in self._read(ENTITY_NAMES))

    def search_entities(self, text: str, limit: int = 10) -> list[str]:
        """Known entities named in ``text``, then entities whose name contains ``text`` (the shared rule of
        ``rank_entity_matches``, applied to the candidates Neo4j pre-selects by substring)."""
        needle = entity_key(text)
        if not needle:
            return []
        with self._errors("searching entities"):
            candidates = self._read(SEARCH_CANDIDATES, needle=needle)
        return rank_entity_matches(text, ((r["key"], r["name"]) for r in candidates), limit)

    def expand(self, entities: list[str], hops: int = 2, limit: int = 50) -> list[tuple[Relation, int]]:
        """Relations within ``hops`` of the seeds, by the shared rule in ``base.breadth_first``."""
        hops = int(hops)
        seeds = sorted({entity_key(e) for e in entities})
        if not seeds or hops < 1 or limit <= 0:
            return []
        with self._errors("expanding the graph"):
            frontier = {r["key"] for r in self._read(EXISTING_KEYS, keys=seeds)}
            return breadth_first(
                frontier, hops, limit,
                lambda keys: ((r["id"], _relation(r["props"]), r["u"], r["v"]) for r in self._read(HOP, frontier=keys)))

    def neighbourhood(self, entity: str, hops: int = 1, limit: int = 100) -> tuple[list[Entity], list[Relation]]:
        relations = [rel for rel, _ in self.expand([entity], hops=hops, limit=limit)]
        keys: list[str] = [entity_key(entity)]
        for r in relations:
            for k in (entity_key(r.source), entity_key(r.target)):
                if k not in keys:
                    keys.append(k)
        with self._errors("reading a neighbourhood"):
            found = {r["key"]: Entity(name=r["name"], type=r["type"]) for r in self._read(ENTITIES_BY_KEY, keys=keys)}
        return [found[k] for k in keys if k in found], relations

    def counts(self) -> dict[str, int]:
        with self._errors("counting entities and relations"):
            record = self._read(COUNTS)[0]
        return {"entities": int(record["entities"]), "relations": int(record["relations"])}


def _short(exc: BaseException) -> str:
    """The useful part of a driver error: Neo4j's own message, or the socket error behind a failed connect
    ("[Errno 111] Connection refused") instead of the driver's multi-line account of it."""
    if isinstance(exc, _neo4j().exceptions.Neo4jError) and getattr(exc, "message", None):
        return str(exc.message)
    cause: BaseException | None = exc
    seen = 0
    while cause is not None and seen < 10:
        if isinstance(cause, OSError) and not isinstance(cause, type(exc)):
            return str(cause)
        cause, seen = cause.__cause__ or cause.__context__, seen + 1
    text = " ".join(str(exc).split())
    reason = re.search(r"\(reason ([^)]*)\)", text)
    return redact_text(reason.group(1) if reason else text)


def _entity_rows(entities: list[Entity], relations: list[Relation]) -> list[dict[str, str]]:
    """One row per entity key, in first-seen order: the first display name, and the first specific type
    (not "concept") if any — what the embedded store ends up with after adding them one by one."""
    rows: dict[str, dict[str, str]] = {}

    def add(name: str, type_: str) -> None:
        key = entity_key(name)
        row = rows.get(key)
        if row is None:
            rows[key] = {"key": key, "name": name.strip(), "type": type_}
        elif row["type"] == "concept" and type_ != "concept":
            row["type"] = type_

    for e in entities:
        if e.name.strip():
            add(e.name, e.type or "concept")
    for r in relations:
        add(r.source, "concept")
        add(r.target, "concept")
    return list(rows.values())


def _relation(props: dict[str, Any]) -> Relation:
    return Relation(source=props.get("source", ""), predicate=props.get("predicate", ""),
                    target=props.get("target", ""), evidence=props.get("evidence", ""),
                    doc_id=props.get("doc_id", ""), chunk_id=props.get("chunk_id", ""),
                    source_file=props.get("source_file", "") or "")


def _batches(rows: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    for start in range(0, len(rows), BATCH_SIZE):
        yield rows[start : start + BATCH_SIZE]
