"""rewrite: keep the key terms, then add glossary translations, then terms of ambiguous documents."""
from __future__ import annotations

from typing import Sequence

from rag.engines.offline.coverage import _glossary_translations, coverage_of, question_terms
from rag.engines.offline.text import _is_number, _label_of, _quote, _sentences
from rag.textutil import key_terms, normalize_query
from rag.types import Grade, Retrieved, Rewrite


class Rewriter:
    """rewrite: keep the key terms, then add glossary translations, then terms of ambiguous documents.

    Part of ``OfflineEngine``."""

    def rewrite(self, question: str, query: str, docs: list[Retrieved], grades: list[Grade]) -> Rewrite:
        terms, _ = question_terms(question)
        if not terms:
            terms = question_terms(query)[0] or [question.strip()]
        base = list(terms)
        translations: list[str] = []
        for t in terms:
            for other in _glossary_translations(t):
                if other not in base and other not in translations and len(other) > 1:
                    translations.append(other)
                    break
        doc_terms = self._terms_from_ambiguous(question, docs, grades, exclude=set(base) | set(translations))
        narrow = [t for t in terms if _is_number(t)] + sorted(
            [t for t in terms if not _is_number(t)], key=len, reverse=True)[:2]

        candidates: list[tuple[list[str], str]] = [
            (base, "kept key terms " + _quote(base) + ", dropped question words and particles"),
        ]
        if translations:
            candidates.append((base + translations, "added glossary translations " + _quote(translations)))
        if doc_terms:
            candidates.append((base + translations + doc_terms,
                               "added terms from ambiguous documents " + _quote(doc_terms)))
        if narrow and narrow != base:
            candidates.append((narrow, "narrowed to the most specific terms " + _quote(narrow)))

        # the candidates form a sequence: continue after the one the current query is, so that successive
        # rewrites never repeat a query (the agent only passes the latest one)
        current = normalize_query(query)
        position = next((i for i, (words, _) in enumerate(candidates)
                         if normalize_query(" ".join(words)) == current), -1)
        for words, why in candidates[position + 1:]:
            text = " ".join(words)
            if normalize_query(text) not in (current, normalize_query(question)):
                return Rewrite(text, why)
        words, why = candidates[-1]
        return Rewrite(" ".join(words), why + " (no new rewrite left: same query as before)")

    def _terms_from_ambiguous(self, question: str, docs: Sequence[Retrieved], grades: Sequence[Grade],
                              exclude: set[str], limit: int = 3) -> list[str]:
        terms, _ = question_terms(question)
        counts: dict[str, int] = {}
        for i, doc in enumerate(docs):
            if _label_of(grades, i) != "ambiguous":
                continue
            sentences = _sentences(doc.text)
            best = max(sentences, key=lambda s: coverage_of(terms, s).score)
            for t in key_terms(best):
                if t not in exclude and not _is_number(t) and len(t) > 1:
                    counts[t] = counts.get(t, 0) + 1
        ranked = sorted(counts, key=lambda t: (-counts[t], -len(t)))
        return ranked[:limit]
