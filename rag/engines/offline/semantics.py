"""Question ↔ sentence similarity with the multilingual embedder: the semantic signal of grading, evaluation and
answer selection (an English question meets a Korean or Chinese sentence and the other way round).

Sentence vectors come from ``rag.sentences`` (computed at ingest, stored per chunk id). A chunk the store lacks
(a knowledge base built before sentence vectors existed) is split and embedded once and written back, so it is
never embedded again; graph facts (their evidence sentence) and web results are embedded once per process.
The question is embedded once per engine (cached by text).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from rag.engines.offline.rules import (COMPARED_JOIN, COMPARISON_WORDS, INTENT_CUES, LANGUAGE_ANCHORS, PROCEDURE_QUESTION, SEMANTIC_Z_RANGE, SENTENCE_FALLBACK_OFFSET,
                                       SENTENCE_FALLBACK_STD, SENTENCE_STATS_MIN_COUNT,
                                       SENTENCE_STATS_MIN_STD)
from rag.engines.offline.parts import asking_clause
from rag.textutil import dominant_language
from rag.sentences import (ChunkSentences, LanguageStats, Unit, cached_matrix, embed_units, language_floor,
                           split_units, store_for)
from rag.types import Retrieved

_MEMORY_LIMIT = 4000


_CJK = re.compile(r"[\uac00-\ud7a3\u3400-\u4dbf\u4e00-\u9fff]")


def is_statement(text: str) -> bool:
    """A sentence that can state a fact: not a question, and long enough — 12+ characters with a space, or 6+ for
    Chinese / Korean (the length rule of answer selection)."""
    clean = text.strip()
    if not clean or clean.endswith(("?", "？")):
        return False
    if _CJK.search(clean):
        return len(clean) >= 6
    return len(clean) >= 12 and " " in clean


# a number stated as a value ("15일", "0.75", "450 个", "k=60"), not a digit inside a name ("BM25", "X2"); Chinese
# numerals before a counter ("三天", "十点") count too (language, not tuned)
STATED_NUMBER = re.compile(r"(?<![A-Za-z0-9.\-])\d+(?:[.,]\d+)?(?![A-Za-z0-9\-])|[一二三四五六七八九十两百千万半]+"
                           r"[个天年月日次小分周元人本件项点岁倍号层名台公米克折成]")


def states_number(text: str) -> bool:
    return bool(STATED_NUMBER.search(text))


def question_intents(question: str) -> set[str]:
    """'cause' / 'procedure' / 'comparison' when the question asks for one (language cues, rules.INTENT_CUES)."""
    q = question.lower()
    intents = {name for name, cue in INTENT_CUES.items() if re.search(cue, q)}
    if PROCEDURE_QUESTION.search(q):
        intents.add("procedure")
    return intents


_CUE_WORDS = re.compile(r"\b(?:what|which|how|is|are|do|does|the|a|an|between|difference|differences|differ|"
                        r"compare|compared|with|of|in|terms)\b|[?？!.,，]|(?:有什么|有何|是什么|什么)", re.I)
_KO_TOPIC_END = re.compile(r"^(.+?[가-힣A-Za-z0-9])(?:는|은|의|이|가)$")


def compared_sides(question: str) -> list[str]:
    """The two things a comparison question compares ("베이직 요금제와 프리미엄 요금제는 어떻게 다른가요?" → "베이직 요금제",
    "프리미엄 요금제 …"), by the word that joins them (rules.COMPARED_JOIN); [] when it is not a comparison."""
    if "comparison" not in question_intents(question):
        return []
    # the sides are in what the question asks, not in its lead-in ("품질안전팀에 새로 와서 … 맡게 됐는데요, 알람
    # 기준 온도랑 측정값 보관 기간은 각각 …": the first side is not the lead-in with the alarm temperature)
    parts = COMPARED_JOIN.split(asking_clause(question), maxsplit=1)
    if len(parts) != 2:
        return []
    sides = []
    for part in parts:
        words: list[str] = []
        for w in _CUE_WORDS.sub(" ", part).split():
            if w.lower() in COMPARISON_WORDS:
                continue
            m = _KO_TOPIC_END.match(w) if re.search(r"[가-힣]$", w) else None
            if m and words or (m and part is parts[1]):
                words.append(m.group(1))  # "… 요금제는 어떻게 다른가요": the side ends at its topic particle
                break
            words.append(w)
        side = " ".join(words).strip()
        if side:
            sides.append(side)
    return sides if len(sides) == 2 else []


def heading_matches(heading: str, intents: set[str]) -> bool:
    h = heading.lower()
    return bool(heading) and any(re.search(INTENT_CUES[i], h) for i in intents)


@dataclass
class SentenceEvidence:
    """The sentence units of one document scored against the question."""

    units: list[Unit]
    sims: np.ndarray  # cosine question ↔ unit
    margins: np.ndarray  # language-centred z-score of the cosine (rag.sentences.LanguageStats)
    scores: np.ndarray  # z-scores rescaled to 0..1 (rules.SEMANTIC_Z_RANGE)

    @property
    def best(self) -> int:
        return int(np.argmax(self.scores)) if len(self.scores) else -1

    @property
    def best_score(self) -> float:
        return float(self.scores.max()) if len(self.scores) else 0.0


def _fact_units(doc: Retrieved) -> list[Unit]:
    """A graph fact is one unit: its evidence sentence (or its text), with the triple as context; the sentence that
    named a described entity (rag.tools.graph) keeps its section heading, as it was stored."""
    meta = doc.metadata or {}
    evidence = meta.get("evidence") if isinstance(meta.get("evidence"), str) else ""
    triple = meta.get("triple") or []
    head = " ".join(str(t) for t in triple) if len(triple) == 3 else str(meta.get("heading") or "")
    return [Unit(head, (evidence or doc.text).strip() or doc.text)]


class Semantics:
    """Sentence units of retrieved documents and their similarity to the question (part of ``OfflineEngine``)."""

    def _semantic_state(self) -> tuple[dict[str, np.ndarray], dict[str, ChunkSentences]]:
        if not hasattr(self, "_qvec_cache"):
            self._qvec_cache: dict[str, np.ndarray] = {}
            self._units_cache: dict[str, ChunkSentences] = {}
        return self._qvec_cache, self._units_cache

    def question_vector(self, question: str) -> np.ndarray:
        cache, _ = self._semantic_state()
        if question not in cache:
            if len(cache) > _MEMORY_LIMIT:
                cache.clear()
            v = np.asarray(self.query_embedding(question), dtype=np.float32)
            n = float(np.linalg.norm(v))
            cache[question] = v / n if n else v
        return cache[question]

    def units_of(self, docs: Sequence[Retrieved]) -> list[ChunkSentences]:
        """The sentence units (with vectors) of each document, in order: from memory, else the sentence store
        (chunks), else embedded now — and a chunk embedded now is written to the store, never embedded again."""
        _, memory = self._semantic_state()
        name = self._embedder_name()
        keys = [f"{name}|{d.tool}|{d.id}|{hash(d.text)}" for d in docs]
        out: list[ChunkSentences | None] = [memory.get(k) for k in keys]
        chunks = {d.id: d.text for d, o in zip(docs, out) if o is None and d.tool == "vector" and d.id}
        stored: dict[str, ChunkSentences] = {}
        store = None
        if chunks:
            store = store_for(self.settings.data_dir)
            stored = store.get(chunks, name)
        todo: list[tuple[int, list[Unit]]] = []
        for i, doc in enumerate(docs):
            if out[i] is not None:
                continue
            if doc.tool == "vector" and doc.id in stored:
                out[i] = stored[doc.id]
            else:
                units = _fact_units(doc) if doc.tool == "graph" else split_units(doc.text)[0]
                todo.append((i, units or [Unit("", doc.text.strip() or doc.text or " ")]))
        if todo:
            vectors = embed_units(self.embedder, [units for _, units in todo])
            backfill = []
            for (i, units), v in zip(todo, vectors):
                out[i] = ChunkSentences(units, v)
                doc = docs[i]
                if doc.tool == "vector" and store is not None and doc.id:
                    backfill.append((doc.id, doc.doc_id or "", doc.text, units, v))
            if backfill and store is not None:
                store.write(backfill, embedder_name=name)
        if len(memory) > _MEMORY_LIMIT:
            memory.clear()
        for k, o in zip(keys, out):
            memory[k] = o
        return [o if o is not None else ChunkSentences([], np.zeros((0, 1), np.float32)) for o in out]

    def unit_similarities(self, question: str, docs: Sequence[Retrieved]) -> list[np.ndarray]:
        """Cosine of the question with every unit of every document (one array per document)."""
        if not docs:
            return []
        q = self.question_vector(question)
        sims: list[np.ndarray] = []
        for cs in self.units_of(docs):
            if cs.vectors.size and cs.vectors.shape[1] == q.shape[0]:
                sims.append(cs.vectors @ q)
            else:
                sims.append(np.zeros(len(cs.units), np.float32))
        return sims

    def _language_floor(self, question: str) -> dict[str, float]:
        """The question's mean cosine with everyday sentences of each language (rules.LANGUAGE_ANCHORS)."""
        return language_floor(self.embedder, self.question_vector(question), LANGUAGE_ANCHORS)

    def language_stats(self, question: str) -> LanguageStats:
        """Mean and spread of the question's cosine with the knowledge base's sentences of each language — the same
        centring as the sentence channel of retrieval (rag.tools.vector), from the matrix it loaded for the current
        revision. Without one (no retrieval in this process yet): the everyday-sentence floor plus the offset and
        spread measured on sample_docs (rules.SENTENCE_FALLBACK_*)."""
        if not hasattr(self, "_stats_cache"):
            self._stats_cache: dict[tuple[str, int], LanguageStats] = {}
        matrix = cached_matrix(self.settings.data_dir, self._embedder_name())
        key = (question, id(matrix) if matrix is not None else 0)
        if key not in self._stats_cache:
            if len(self._stats_cache) > _MEMORY_LIMIT:
                self._stats_cache.clear()
            floor = self._language_floor(question)
            q = self.question_vector(question)
            if matrix is not None and len(matrix) and matrix.vectors.shape[1] == q.shape[0]:
                stats = matrix.stats(matrix.vectors @ q, SENTENCE_STATS_MIN_COUNT, SENTENCE_STATS_MIN_STD, floor,
                                     SENTENCE_FALLBACK_OFFSET, SENTENCE_FALLBACK_STD)
            else:
                stats = LanguageStats({k: v + SENTENCE_FALLBACK_OFFSET for k, v in floor.items()},
                                      {k: SENTENCE_FALLBACK_STD for k in floor}, {})
            self._stats_cache[key] = stats
        return self._stats_cache[key]

    def side_scores(self, question: str, docs: Sequence[Retrieved]) -> list[list[np.ndarray]]:
        """Per document, per compared side (``compared_sides``): the semantic score of every unit for that side."""
        sides = compared_sides(question)
        if not sides:
            return [[] for _ in docs]
        per_side = [self.sentence_evidence(side, docs) for side in sides]
        return [[per_side[k][i].scores for k in range(len(sides))] for i in range(len(docs))]

    def sentence_evidence(self, question: str, docs: Sequence[Retrieved]) -> list[SentenceEvidence]:
        """Every document's units with their cosine, language-centred z-score (``margins``) and 0..1 semantic
        score (the z-score rescaled from rules.SEMANTIC_Z_RANGE)."""
        if not docs:
            return []
        stats = self.language_stats(question)
        own = dominant_language(question)
        lo, hi = SEMANTIC_Z_RANGE
        out: list[SentenceEvidence] = []
        for cs, sims in zip(self.units_of(docs), self.unit_similarities(question, docs)):
            texts = [u.text for u in cs.units]
            margins = stats.centre_mixed(sims, texts, own) if texts else np.zeros(0, np.float32)
            scores = np.clip((margins - lo) / (hi - lo), 0.0, 1.0)
            # only a statement is evidence: a fragment ("BM25", "문의") or a question (an FAQ's "재택근무를 할 수
            # 있나요?") sits close to any question in meaning and states nothing
            if len(scores):
                scores = scores * np.asarray([is_statement(u.text) for u in cs.units], dtype=np.float32)
            out.append(SentenceEvidence(cs.units, sims, margins, scores))
        return out
