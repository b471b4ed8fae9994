"""extract: entities and relations of a chunk by the rules of ``rag.extract``."""
from __future__ import annotations

from rag.types import Extraction


class Extractor:
    """extract: entities and relations of a chunk by the rules of ``rag.extract`` (part of ``OfflineEngine``)."""

    def extract(self, text: str, doc_id: str, chunk_id: str, source_file: str) -> Extraction:
        from rag.extract import extract

        return extract(text, doc_id, chunk_id, source_file)
