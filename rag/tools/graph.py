"""Graph retrieval: seed entities, k-hop expansion, facts with their evidence sentences.

Seeds are the known entities named in the question plus those named in the top vector hits
(so "the company that built Nova-7" still reaches the company through its chunk). Relations
within ``settings.graph_hops`` hops come back as documents: the evidence sentence and the
triple. Score = (0.5 + 0.2 if the fact touches an entity named in the question + 0.3 * share of
the question's key terms found in the fact) / hop, so a 1-hop fact always outranks a 2-hop one.
"""
from __future__ import annotations

from typing import Any

from rag.config import Settings
from rag.graphstore import entity_key, relation_id
from rag.textutil import key_terms, tokenize
from rag.types import RagError, Relation, Retrieved, ToolUnavailable

SEEDS_FROM_QUESTION = 8
VECTOR_HITS_FOR_SEEDS = 1
SEEDS_PER_HIT = 3


def fact_text(rel: Relation) -> str:
    return f"{rel.evidence}\n({rel.source} —{rel.predicate}→ {rel.target})"


class GraphTool:
    name = "graph"

    def __init__(self, kb: Any, settings: Settings) -> None:
        self.kb = kb
        self.settings = settings

    def available(self) -> tuple[bool, str]:
        try:
            counts = self.kb.graph.counts()
        except Exception as exc:
            return False, f"graph store unavailable: {exc}"
        if counts.get("relations", 0) == 0:
            return False, "the knowledge graph has no facts yet: ingest documents first"
        return True, f"{counts.get('entities', 0)} entities, {counts.get('relations', 0)} relations"

    def seeds(self, query: str) -> tuple[list[str], list[str]]:
        """(entities named in the question, entities named in the top vector hits)."""
        graph = self.kb.graph
        from_question = graph.search_entities(query, limit=SEEDS_FROM_QUESTION)
        from_hits: list[str] = []
        try:
            hits = self.kb.tools()["vector"].run(query, VECTOR_HITS_FOR_SEEDS)
        except ToolUnavailable:
            hits = []
        for hit in hits:
            for name in graph.search_entities(hit.text, limit=SEEDS_PER_HIT):
                if name not in from_question and name not in from_hits:
                    from_hits.append(name)
        return from_question, from_hits

    def run(self, query: str, top_k: int) -> list[Retrieved]:
        try:
            graph = self.kb.graph
            from_question, from_hits = self.seeds(query)
            seeds = from_question + from_hits
            if not seeds:
                return []
            found = graph.expand(seeds, hops=self.settings.graph_hops, limit=max(50, top_k * 10))
        except RagError as exc:
            raise ToolUnavailable(str(exc)) from exc
        except Exception as exc:
            raise ToolUnavailable(f"graph store unavailable: {type(exc).__name__}: {exc}") from exc

        terms = set(key_terms(query))
        named = {entity_key(e) for e in from_question}
        out: dict[str, Retrieved] = {}
        for rel, hop in found:
            rid = relation_id(rel)
            fact_tokens = set(tokenize(f"{rel.evidence} {rel.source} {rel.target}"))
            coverage = len(terms & fact_tokens) / len(terms) if terms else 0.0
            touches = entity_key(rel.source) in named or entity_key(rel.target) in named
            score = (0.5 + (0.2 if touches else 0.0) + 0.3 * coverage) / hop
            if rid in out and out[rid].score >= score:
                continue
            chunk_index = rel.chunk_id.rsplit(":", 1)[-1]
            out[rid] = Retrieved(
                id=rid, text=fact_text(rel), source=rel.source_file or "graph", score=round(score, 6), tool="graph",
                doc_id=rel.doc_id, chunk_index=int(chunk_index) if chunk_index.isdigit() else None,
                metadata={"triple": [rel.source, rel.predicate, rel.target], "hop": hop, "chunk_id": rel.chunk_id,
                          "evidence": rel.evidence, "seed_entities": seeds, "question_entities": from_question,
                          "term_coverage": round(coverage, 4)},
            )
        return sorted(out.values(), key=lambda r: (-r.score, r.metadata["hop"], r.id))[:top_k]
