"""The offline decision engine: transparent rules and scores, no language model.

- classify: keyword rules in a fixed order (direct → web → graph → vector); the rule that fired and
  the words it matched are the reason and go into ``Decision.signals``.
- grade: CRAG labels from embedding similarity (rescaled to the embedder's usual range) plus key-term
  coverage; numbers and years of the question are hard requirements for "correct", and a chunk that
  shares none of the question's content words is "incorrect" however similar it looks.
- evaluate: context quality from the best supporting document, the key-term coverage of all supporting
  documents together, and the share of supporting documents.
- rewrite: keep the key terms, then add glossary translations, then terms of ambiguous documents.
- generate: extractive — sentences copied from the documents, numbered citations, never invented text.
"""
from __future__ import annotations

from datetime import date
from typing import Any, Callable

from rag.config import Settings
from rag.engines.offline.answering import Answerer
from rag.engines.offline.critics import Critics
from rag.engines.offline.direct import DirectAnswerer
from rag.engines.offline.evaluation import ContextEvaluator
from rag.engines.offline.extraction import Extractor
from rag.engines.offline.grading import Grader
from rag.engines.offline.rewriting import Rewriter
from rag.engines.offline.routing import Router
from rag.engines.offline.rules import SEMANTIC_Z_RANGE, SIMILARITY_RANGES, OfflineRules
from rag.engines.offline.selection import EvidenceSelector
from rag.engines.offline.semantics import Semantics
from rag.engines.offline.temporal import Clock
from rag.types import Retrieved


class OfflineEngine(Router, Grader, ContextEvaluator, Rewriter, Answerer, EvidenceSelector, DirectAnswerer, Extractor,
                    Semantics, Clock, Critics):
    """Rules and scores only; every result says which rule or score decided it."""

    name = "offline"

    def __init__(self, settings: Settings, embedder: Any = None, rules: OfflineRules | None = None,
                 clock: Callable[[], date] | None = None) -> None:
        self.settings = settings
        self.clock = clock  # today's date (None: RAG_TODAY, else the system date); see temporal.py
        self.rules = rules or OfflineRules()
        self._embedder = embedder
        self._query_vectors: dict[str, list[float]] = {}
        self._doc_vectors: dict[str, list[float]] = {}

    # ---- embeddings ---------------------------------------------------------------------------------
    @property
    def embedder(self) -> Any:
        if self._embedder is None:
            from rag.embeddings import get_embedder

            self._embedder = get_embedder(self.settings)
        return self._embedder

    def _embedder_name(self) -> str:
        if self._embedder is not None:
            return str(getattr(self._embedder, "name", type(self._embedder).__name__))
        from rag.embeddings import embedder_name

        return embedder_name(self.settings)

    def similarity_range(self) -> tuple[float, float]:
        name = self._embedder_name().lower()
        if "e5" in name:
            return SIMILARITY_RANGES["e5"]
        if "openai" in name or "text-embedding" in name:
            return SIMILARITY_RANGES["openai"]
        return SIMILARITY_RANGES["default"]

    def similarity(self, question: str, doc: Retrieved) -> tuple[float, str]:
        """(cosine similarity of question and document, where it came from)."""
        meta = doc.metadata or {}
        if isinstance(meta.get("dense_similarity"), (int, float)):
            return float(meta["dense_similarity"]), "retriever"
        from rag.embeddings import cosine

        key = doc.text
        if key not in self._doc_vectors:
            if len(self._doc_vectors) > 5000:
                self._doc_vectors.clear()
            self._doc_vectors[key] = self.embedder.embed_documents([doc.text])[0]
        return cosine(self.query_embedding(question), self._doc_vectors[key]), "computed"

    def query_embedding(self, question: str) -> list[float]:
        """The embedder's vector of the question, embedded once per engine for similarity, question_vector
        (semantics.py) and grade_answer (critics.py)."""
        if question not in self._query_vectors:
            if len(self._query_vectors) > 5000:
                self._query_vectors.clear()
            self._query_vectors[question] = self.embedder.embed_query(question)
        return self._query_vectors[question]

    # ---- describe -----------------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        lo, hi = self.similarity_range()
        r = self.rules
        return {
            "engine": "offline",
            "embedder": self._embedder_name(),
            "rules": {
                "classify_order": ["direct (translation / arithmetic / code syntax)",
                                   "web (temporal markers; a year the documents do not mention, "
                                   f"within {r.recent_years} year(s) of today or later)",
                                   "graph (relation patterns, or >= 2 known graph entities)", "vector (default)"],
                "similarity_range": [lo, hi],
                "grade_score": f"{r.sim_weight} * similarity rescaled to [{lo}, {hi}] + "
                               f"{1 - r.sim_weight:.2f} * key-term coverage (numbers count double); key terms count "
                               "only where the document could contain them as written (its language), the rest "
                               "is the semantic match: the best question ↔ sentence cosine as a z-score among the "
                               "knowledge base's sentences of that sentence's language, rescaled from z "
                               f"{list(SEMANTIC_Z_RANGE)}",
                "correct": f"score >= {r.correct_score}, coverage >= {r.correct_coverage}, every number of the "
                           "question present, and every statistic it asks for (평균 / average / total …)",
                "ambiguous": f"score >= {r.ambiguous_score}, or missing a number / statistic of the question",
                "incorrect": "below that, or none of the content words of the asking clause present (a lead-in "
                             "clause such as '연봉 계약할 때 참고하려고 하는데,' does not count)",
                "graph_fact": "correct when its relation is one the question asks (cue words, e.g. '도시' → located_in) "
                              "and it names a question entity; ambiguous when only one of the two holds; score = "
                              f"(0.35 entity + 0.35 relation + 0.30 coverage) / (1 + {r.graph_hop_weight} × (hop − 1))",
                "graph_quality": "coverage of the asked relations along a path from the question's entities "
                                 "× (0.5 + 0.5 × key-term coverage); related_to stands in for a missing relation at ½",
                "quality": f"{r.quality_best} * best support-weighted grade score + {r.quality_coverage} * key-term "
                           f"coverage of supporting docs + {r.quality_share} * share of supporting docs "
                           f"(correct = 1, ambiguous = {r.ambiguous_support})",
                "generate": "extractive: sentences of correct, then ambiguous documents ranked by key terms and "
                            "semantic match; a cause / procedure / comparison question gets the matching section "
                            "(## Root cause, ## 원인, ## 原因) or one sentence per compared name; graph answers "
                            "follow the chain hop by hop",
                "time": "today from the engine's clock (RAG_TODAY); 'this year' needs today's year in a correct "
                        "document, 'latest' is at most ambiguous",
            },
        }
