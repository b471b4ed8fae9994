"""The default graph store: a networkx MultiDiGraph persisted as JSON (``data_dir/graph.json``).

Nodes are keyed by ``entity_key(name)`` and remember which documents mention them; edges are
relations keyed by ``relation_id`` and keep their evidence sentence, doc, chunk and file.
Every write rewrites the file atomically (temp file + rename); a change made by another
process (the CLI while the app runs) is picked up on the next call. The file belongs to one data
directory, so it needs no knowledge-base id; writers are serialised by ``rag.ingest.WriterLock``
(each re-reads the file before changing it, so no process's facts are lost).
"""
from __future__ import annotations

import json
import os
import tempfile
import threading
from dataclasses import asdict
from pathlib import Path

import networkx as nx

from rag.graphstore import relation_id
from rag.graphstore.base import breadth_first, entity_key, rank_entity_matches
from rag.types import Entity, Relation

FORMAT_VERSION = 1


class EmbeddedGraphStore:
    backend = "embedded"

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        self._graph = nx.MultiDiGraph()
        self._stamp: tuple[int, int] | None = None
        self._load()

    # ---- persistence -----------------------------------------------------
    def _file_stamp(self) -> tuple[int, int] | None:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def _load(self) -> None:
        graph = nx.MultiDiGraph()
        stamp = self._file_stamp()
        if stamp is not None:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            for node in data.get("entities", []):
                graph.add_node(node["key"], name=node["name"], type=node.get("type", "concept"),
                               docs=set(node.get("docs", [])))
            for rel in data.get("relations", []):
                rel = dict(rel)
                rid = rel.pop("id")
                r = Relation(**rel)
                graph.add_edge(entity_key(r.source), entity_key(r.target), key=rid, rel=r)
        self._graph = graph
        self._stamp = stamp

    def _refresh(self) -> None:
        if self._file_stamp() != self._stamp:
            self._load()

    def _save(self) -> None:
        data = {
            "version": FORMAT_VERSION,
            "entities": [{"key": k, "name": a["name"], "type": a["type"], "docs": sorted(a["docs"])}
                         for k, a in self._graph.nodes(data=True)],
            "relations": [{"id": rid, **asdict(d["rel"])} for _, _, rid, d in self._graph.edges(keys=True, data=True)],
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".graph-", suffix=".json", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, ensure_ascii=False)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._stamp = self._file_stamp()

    # ---- writes ----------------------------------------------------------
    def _add_entity(self, name: str, type_: str, doc_id: str) -> str:
        key = entity_key(name)
        if key not in self._graph:
            self._graph.add_node(key, name=name.strip(), type=type_, docs=set())
        elif self._graph.nodes[key]["type"] == "concept" and type_ != "concept":
            self._graph.nodes[key]["type"] = type_
        self._graph.nodes[key]["docs"].add(doc_id)
        return key

    def upsert(self, doc_id: str, entities: list[Entity], relations: list[Relation]) -> None:
        with self._lock:
            self._refresh()
            for e in entities:
                if e.name.strip():
                    self._add_entity(e.name, e.type, doc_id)
            for r in relations:
                src = self._add_entity(r.source, "concept", doc_id)
                tgt = self._add_entity(r.target, "concept", doc_id)
                self._graph.add_edge(src, tgt, key=relation_id(r), rel=r)
            self._save()

    def delete_document(self, doc_id: str) -> None:
        with self._lock:
            self._refresh()
            doomed = [(u, v, k) for u, v, k, d in self._graph.edges(keys=True, data=True) if d["rel"].doc_id == doc_id]
            self._graph.remove_edges_from(doomed)
            for key, attrs in list(self._graph.nodes(data=True)):
                attrs["docs"].discard(doc_id)
                if not attrs["docs"]:
                    self._graph.remove_node(key)
            self._save()

    def reset(self) -> None:
        with self._lock:
            self._graph = nx.MultiDiGraph()
            self._save()

    def close(self) -> None:  # nothing held open: every write is already on disk
        pass

    # ---- reads -----------------------------------------------------------
    def has_document(self, doc_id: str) -> bool:
        with self._lock:
            self._refresh()
            return any(doc_id in attrs["docs"] for _, attrs in self._graph.nodes(data=True))

    def document_ids(self) -> list[str]:
        """Every document some entity or relation belongs to."""
        with self._lock:
            self._refresh()
            docs = {d for _, attrs in self._graph.nodes(data=True) for d in attrs["docs"]}
            docs.update(d["rel"].doc_id for _, _, d in self._graph.edges(data=True))
            return sorted(docs)

    def entity_names(self) -> list[str]:
        with self._lock:
            self._refresh()
            return sorted(a["name"] for _, a in self._graph.nodes(data=True))

    def search_entities(self, text: str, limit: int = 10) -> list[str]:
        """Known entities named in ``text``, then entities whose name contains ``text`` — the rule of
        ``rank_entity_matches``, shared with the Neo4j store so the two cannot drift apart."""
        if not entity_key(text):
            return []
        with self._lock:
            self._refresh()
            candidates = [(key, attrs["name"]) for key, attrs in self._graph.nodes(data=True)]
        return rank_entity_matches(text, candidates, limit)

    def expand(self, entities: list[str], hops: int = 2, limit: int = 50) -> list[tuple[Relation, int]]:
        """Relations within ``hops`` of the seeds, by the shared rule in ``base.breadth_first``."""
        def edges_of(keys: list[str]):
            for node in keys:
                edges = list(self._graph.out_edges(node, keys=True, data=True)) + list(
                    self._graph.in_edges(node, keys=True, data=True))
                for u, v, rid, d in edges:
                    yield rid, d["rel"], u, v

        with self._lock:
            self._refresh()
            frontier = {entity_key(e) for e in entities if entity_key(e) in self._graph}
            return breadth_first(frontier, hops, limit, edges_of)

    def neighbourhood(self, entity: str, hops: int = 1, limit: int = 100) -> tuple[list[Entity], list[Relation]]:
        relations = [rel for rel, _ in self.expand([entity], hops=hops, limit=limit)]
        with self._lock:
            keys: list[str] = []
            start = entity_key(entity)
            if start in self._graph:
                keys.append(start)
            for r in relations:
                for k in (entity_key(r.source), entity_key(r.target)):
                    if k not in keys:
                        keys.append(k)
            entities = [Entity(name=self._graph.nodes[k]["name"], type=self._graph.nodes[k]["type"])
                        for k in keys if k in self._graph]
        return entities, relations

    def counts(self) -> dict[str, int]:
        with self._lock:
            self._refresh()
            return {"entities": self._graph.number_of_nodes(), "relations": self._graph.number_of_edges()}
