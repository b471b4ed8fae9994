"""The graph store interface shared by the embedded (networkx) and Neo4j backends.

Both backends pass the same conformance suite (tests/test_graphstore.py).
Entity names are matched case-insensitively through a normalised key
(``entity_key``); the display name is the first one seen.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Callable, Iterable, Protocol, runtime_checkable

from rag.types import Entity, Relation


def entity_key(name: str) -> str:
    """Normalised identity of an entity name: NFKC, casefolded, inner whitespace collapsed."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", name)).strip().casefold()


_LATIN_RE = re.compile(r"[a-z0-9]")


EdgesOf = Callable[[list[str]], Iterable[tuple[str, Relation, str, str]]]


def breadth_first(frontier: set[str], hops: int, limit: int, edges_of: EdgesOf) -> list[tuple[Relation, int]]:
    """The expansion rule both backends share: breadth-first over relations in both directions.

    ``frontier`` holds the entity keys of the seeds that exist; ``edges_of(sorted keys)`` yields
    ``(relation id, Relation, key of one end, key of the other end)`` for every relation touching them.
    Hop 1 = relations touching a seed, hop n = relations touching an entity first reached at hop n-1;
    within a hop, relations are ordered by (source, predicate, target, id) so both backends agree.
    """
    visited = set(frontier)
    seen: set[str] = set()
    out: list[tuple[Relation, int]] = []
    for hop in range(1, max(hops, 0) + 1):
        if not frontier:
            break
        found: list[tuple[str, Relation]] = []
        next_frontier: set[str] = set()
        for rid, rel, u, v in edges_of(sorted(frontier)):
            if rid in seen:
                continue
            seen.add(rid)
            found.append((rid, rel))
            next_frontier.update(k for k in (u, v) if k not in visited)
        found.sort(key=lambda item: (item[1].source, item[1].predicate, item[1].target, item[0]))
        out.extend((rel, hop) for _, rel in found)
        if len(out) >= limit or not next_frontier:
            break
        visited |= next_frontier
        frontier = next_frontier
    return out[:limit]


def rank_entity_matches(text: str, candidates: Iterable[tuple[str, str]], limit: int = 10) -> list[str]:
    """The ``search_entities`` rule, for backends that pre-select ``candidates`` ((key, display name) pairs)
    server-side: entities named in ``text`` (keys of at least two characters; Latin names on word boundaries,
    where hyphens and underscores join words, others as substrings), longest first; then entities whose
    name contains ``text``, shortest first."""
    needle = entity_key(text)
    if not needle:
        return []
    hits: list[tuple[int, int, str]] = []
    for key, name in candidates:
        if len(key) < 2:
            continue
        if _LATIN_RE.search(key[:1]) or _LATIN_RE.search(key[-1:]):
            # "nuri" must not match inside "nuri-lm"
            found = re.search(r"(?<![a-z0-9_-])" + re.escape(key) + r"(?![a-z0-9_]|-[a-z0-9])", needle) is not None
        else:
            found = key in needle
        if found:
            hits.append((0, -len(key), name))
        elif len(needle) >= 2 and needle in key:
            hits.append((1, len(key), name))
    hits.sort()
    return [name for _, _, name in hits[:limit]]


@runtime_checkable
class GraphStore(Protocol):
    backend: str  # "embedded" | "neo4j"

    def upsert(self, doc_id: str, entities: list[Entity], relations: list[Relation]) -> None:
        """Add a document's entities and relations (idempotent; relations keep their evidence)."""

    def delete_document(self, doc_id: str) -> None:
        """Remove the document's relations, and entities no other document mentions."""

    def has_document(self, doc_id: str) -> bool:
        """Whether the store holds facts of the document (a document without entities never has any)."""

    def document_ids(self) -> list[str]:
        """The documents the store holds facts of (``rag repair`` removes those the registry does not know)."""

    def entity_names(self) -> list[str]: ...

    def search_entities(self, text: str, limit: int = 10) -> list[str]:
        """Known entity names that occur in ``text`` or whose name contains it (case-insensitive)."""

    def expand(self, entities: list[str], hops: int = 2, limit: int = 50) -> list[tuple[Relation, int]]:
        """Relations reachable within ``hops`` from the given entities, with the hop (1..hops) they were found at."""

    def neighbourhood(self, entity: str, hops: int = 1, limit: int = 100) -> tuple[list[Entity], list[Relation]]:
        """Entities and relations around one entity, for drawing."""

    def counts(self) -> dict[str, int]:
        """{"entities": n, "relations": m}"""

    def reset(self) -> None: ...

    def close(self) -> None: ...
