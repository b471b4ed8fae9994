"""Key terms of a question and how much of them a text covers (exact, glossary translation, synonym, partial)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from rag.engines.offline.rules import (COMPARISON_WORDS, _CLAUSE_SPLIT, _FILLER_PREFIXES, _FILLER_WORDS,
                                       _KO_LONG_ENDINGS, _KO_PARTICLES, _KO_VERB_ENDINGS, _QUESTION_CUES)
from rag.engines.offline.relations import _slot_term
from rag.engines.offline.text import (_HAN, _HANGUL, _contains_phrase, _doc_text_for_grading, _is_number,
                                      _is_required, _norm)
from rag.engines.offline.vocabulary import GLOSSARY, SYNONYMS
from rag.romanize import cross_script_match, document_keys
from rag.textutil import key_terms, tokenize
from rag.types import Retrieved

_KO_UNITS = frozenset("년 월 일 개 명 번 회 시 분 초".split())  # language: counters after a number


@lru_cache(maxsize=1)
def _glossary_index() -> dict[str, list[str]]:
    """normalised form -> its other-language forms, in glossary order (built once)."""
    index: dict[str, list[str]] = {}
    for row in GLOSSARY:
        forms = [_norm(f) for f in row]
        for t in forms:
            out = index.setdefault(t, [])
            out.extend(f for f in forms if f != t and f not in out)
    return index


def _glossary_translations(term: str) -> list[str]:
    """Other-language forms of a term from the glossary (term in any of the three languages)."""
    return list(_glossary_index().get(_norm(term), ()))


class _Text:
    """A text prepared once for key-term matching."""

    def __init__(self, text: str) -> None:
        self.raw = text
        self.norm = _norm(text)
        self.tokens = set(tokenize(text))
        self._names: set[str] | None = None

    @property
    def names(self) -> set[str]:
        """Name keys of the text (``rag.romanize.document_keys``), made on first use."""
        if self._names is None:
            self._names = set(document_keys(self.raw))
        return self._names

    def match(self, term: str) -> tuple[float, str]:
        """(credit 0..1, how) for one key term: exact 1.0, glossary translation 1.0, partial Korean 0.5."""
        if _is_number(term):
            hit = re.search(rf"(?<![\d.]){re.escape(term)}(?![\d])", self.norm) is not None
            return (1.0, "exact") if hit else (0.0, "")
        if term in self.tokens or _contains_phrase(self.norm, term):
            return 1.0, "exact"
        translations = _glossary_translations(term)
        for other in translations + list(SYNONYMS.get(term, ())):
            if len(other) == 1 and _HANGUL.search(other):
                # one syllable: whole words only; a translation that is a counter after numbers ("year" → 년) is
                # no evidence ("2023년부터" is not about years)
                if other in self.tokens and not (other in _KO_UNITS and other in translations):
                    return 1.0, f"via '{other}'"
            elif _contains_phrase(self.norm, other):
                return 1.0, f"via '{other}'"
        name = cross_script_match(term, self.names)  # a name written in the other script (rag.romanize)
        if name:
            return 1.0, f"via romanized '{name}'"
        if len(term) >= 3 and (_HANGUL.search(term) or _HAN.search(term)):
            grams = [term[i : i + 2] for i in range(len(term) - 1)]
            share = sum(1 for g in grams if g in self.norm) / len(grams)
            if share >= 0.67:
                return 0.5, "partly"
        return 0.0, ""


@dataclass
class Coverage:
    terms: list[str]
    credit: dict[str, float]
    how: dict[str, str]
    focus: set[str] | None = None  # terms of the asking clause; None: all terms

    @property
    def content_terms(self) -> list[str]:
        """Non-number terms of the asking clause."""
        return [t for t in self.terms if not _is_number(t) and (self.focus is None or t in self.focus)]

    @property
    def numbers(self) -> list[str]:
        return [t for t in self.terms if _is_number(t)]

    def weight(self, term: str) -> float:
        if _is_number(term):
            return 2.0
        return 1.0 if self.focus is None or term in self.focus else 0.5

    @property
    def score(self) -> float:
        total = sum(self.weight(t) for t in self.terms)
        return sum(self.weight(t) * self.credit.get(t, 0.0) for t in self.terms) / total if total else 0.0

    @property
    def content_hits(self) -> int:
        return sum(1 for t in self.content_terms if self.credit.get(t, 0.0) > 0)

    @property
    def covered(self) -> list[str]:
        return [t for t in self.terms if self.credit.get(t, 0.0) > 0]

    @property
    def missing(self) -> list[str]:
        return [t for t in self.terms if self.credit.get(t, 0.0) <= 0]

    @property
    def missing_numbers(self) -> list[str]:
        """Required terms (numbers, years, statistics) the text lacks."""
        return [t for t in self.terms if _is_required(t) and self.credit.get(t, 0.0) <= 0]

    def summary(self) -> str:
        hits = sum(self.credit.get(t, 0.0) for t in self.terms)
        covered = ", ".join(f"'{t}'" + (f" {self.how[t]}" if self.how.get(t, "exact") != "exact" else "")
                            for t in self.covered)
        hits_s = f"{hits:g}" if hits != int(hits) else str(int(hits))
        return f"key-term coverage {hits_s}/{len(self.terms)}" + (f" ({covered})" if covered else "")



def _stem(term: str) -> str:
    if not _HANGUL.search(term) or not term.isalpha():
        return term
    for ending in _KO_LONG_ENDINGS:
        if term.endswith(ending) and len(term) > len(ending):
            return term[: -len(ending)]
    if len(term) >= 3 and term.endswith(_KO_VERB_ENDINGS):
        return term[:-1]
    if len(term) == 2 and term.endswith(_KO_PARTICLES):
        return term[:-1]
    return term


def question_terms(question: str) -> tuple[list[str], set[str]]:
    """(key terms of the question, the ones in its asking clause).

    Key terms come from ``textutil.key_terms``; Korean endings are stripped and filler words (question
    stems like 얼마/며칠, "있어", "much") dropped. The asking clause is the clause with the question word;
    a lead-in clause ("연봉 계약할 때 참고하려고 하는데, …") only adds context.
    """
    def clean(text: str) -> list[str]:
        out: list[str] = []
        for t in key_terms(text):
            t = _stem(t)
            if not t or t in _FILLER_WORDS or t in COMPARISON_WORDS or t.startswith(_FILLER_PREFIXES) or t in out:
                continue
            out.append(t)
        return out

    terms = clean(question)
    clauses = [c for c in _CLAUSE_SPLIT.split(question) if c and c.strip()]
    asking = [c for c in clauses if _QUESTION_CUES.search(c.lower())]
    if len(clauses) < 2 or not asking or len(asking) == len(clauses):
        return terms, set(terms)
    focus = {t for c in asking for t in clean(c)}
    return terms, focus or set(terms)


@lru_cache(maxsize=20000)
def prepared_text(text: str) -> _Text:
    """A text prepared for matching, kept for the next question (the same sentences come back often)."""
    return _Text(text)


def coverage_of(terms: Sequence[str], text: str | _Text, focus: set[str] | None = None) -> Coverage:
    prepared = text if isinstance(text, _Text) else prepared_text(text)
    credit: dict[str, float] = {}
    how: dict[str, str] = {}
    for t in terms:
        credit[t], how[t] = prepared.match(t)
    return Coverage(list(terms), credit, how, focus)


def _fact_coverage(terms: Sequence[str], focus: set[str] | None, doc: Retrieved) -> Coverage:
    """Coverage of a graph fact: its text, plus relation cue words its predicate answers ("도시" by located_in)."""
    cov = coverage_of(terms, _doc_text_for_grading(doc), focus)
    triple = (doc.metadata or {}).get("triple") or []
    if len(triple) == 3:
        for t in terms:
            if cov.credit.get(t, 0.0) < 1.0 and _slot_term(t, triple[1]):
                cov.credit[t], cov.how[t] = 1.0, f"via relation {triple[1]}"
    return cov


_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
_CJK_OR_HANGUL = re.compile(r"[\uac00-\ud7a3\u3400-\u4dbf\u4e00-\u9fff]")


def _name_like(term: str, question: str) -> bool:
    """A Latin term written with a capital (not only at the start) or a digit in the question, or any Latin word in
    a Korean or Chinese question: a name such as 'Atlas' or 'bge-m3', which a document in another language keeps as
    written."""
    if any(ch.isdigit() for ch in term):
        return True
    if _CJK_OR_HANGUL.search(question) and re.fullmatch(r"[a-z][a-z0-9.\-_]*", term):
        return True  # a Latin word in a Korean or Chinese question is a name ("Atlas와 Nuri")
    for m in re.finditer(rf"(?<![A-Za-z0-9]){re.escape(term)}(?![A-Za-z0-9])", question, flags=re.IGNORECASE):
        word = m.group(0)
        if word[:1].isupper() and (m.start() > 0 or word[1:2].isupper()):
            return True
    return False


def checkable_terms(terms: Sequence[str], question: str, text: str, cov: Coverage) -> tuple[list[str], float]:
    """The key terms a text could contain as written, and their share of the question's content terms.

    A Korean word cannot be expected in an English or Chinese sentence (nor the other way round), so its absence
    there is no evidence; numbers, names and words the text does contain always count. The share (0..1) says how
    far lexical coverage can be trusted for this text; the rest is left to the semantic signal."""
    latin_letters = len(_LATIN_WORD.findall(text))
    other_letters = len(_CJK_OR_HANGUL.findall(text))
    has_hangul = _HANGUL.search(text) is not None
    has_han = _HAN.search(text) is not None
    mostly_latin = latin_letters * 2 >= other_letters  # words vs CJK characters: a rough "written in English"
    out: list[str] = []
    for t in terms:
        if cov.credit.get(t, 0.0) > 0 or _is_number(t):
            ok = True
        elif _HANGUL.search(t):
            ok = has_hangul
        elif _HAN.search(t):
            ok = has_han
        else:
            ok = mostly_latin or _name_like(t, question)
        if ok:
            out.append(t)
    content = cov.content_terms
    if not content:
        return out, 1.0
    return out, sum(1 for t in content if t in out) / len(content)
