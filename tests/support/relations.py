"""The relations rule extraction gives for a text, as (source key, predicate, target key) triples."""
from __future__ import annotations

from rag.extract import extract
from rag.graphstore.base import entity_key


def extracted_triples(text: str) -> set[tuple[str, str, str]]:
    """``rag.extract.extract`` over ``text`` as one chunk: its relations with both names as entity keys."""
    return {(entity_key(r.source), r.predicate, entity_key(r.target)) for r in extract(text, "d", "d#0").relations}
