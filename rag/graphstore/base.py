"""The graph store interface shared by the embedded (networkx) and Neo4j backends.

Both backends pass the same conformance suite (tests/test_graphstore.py).
Entity names are matched case-insensitively through a normalised key
(``entity_key``); the display name is the first one seen.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Iterable, Protocol, runtime_checkable

from rag.types import Entity, Relation


def entity_key(name: str) -> str:
    """Normalised identity of an entity name: NFKC, casefolded, inner whitespace collapsed."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", name)).strip().casefold()


_LATIN_RE = re.compile(r"[a-z0-9]")


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
