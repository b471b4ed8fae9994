"""Graph stores: the embedded networkx default, or Neo4j when ``NEO4J_URI`` is set.

``open_graph_store(settings)`` picks the backend; both implement ``rag.graphstore.base.GraphStore``.
"""
from __future__ import annotations

import hashlib

from rag.config import Settings
from rag.graphstore.base import GraphStore, entity_key
from rag.types import Relation

__all__ = ["GraphStore", "entity_key", "open_graph_store", "relation_id"]


def relation_id(rel: Relation) -> str:
    """Stable id of one fact: the same triple from the same chunk always gets the same id."""
    raw = "\x1f".join([entity_key(rel.source), rel.predicate, entity_key(rel.target), rel.chunk_id])
    return "rel:" + hashlib.sha1(raw.encode("utf-8")).hexdigest()[:16]


def open_graph_store(settings: Settings, kb_id: str | None = None) -> GraphStore:
    """Neo4j when ``settings.neo4j_uri`` is set (scoped to knowledge base ``kb_id``: a Neo4j may be shared), else
    the networkx store in ``data_dir/graph.json`` (one per data directory)."""
    if settings.neo4j_uri:
        # imported lazily: the neo4j driver is only needed when Neo4j is configured
        from rag.graphstore.neo4j_store import Neo4jGraphStore

        return Neo4jGraphStore(settings, kb_id=kb_id)
    from rag.graphstore.embedded import EmbeddedGraphStore

    return EmbeddedGraphStore(settings.data_dir / "graph.json")
