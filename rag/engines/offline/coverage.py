"""Key terms of a question and how much of them a text covers (exact, glossary translation, synonym, partial)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from rag.engines.offline.rules import (COMPARISON_WORDS, _CLAUSE_SPLIT, _FILLER_PREFIXES, _FILLER_WORDS,
                                       _KO_LONG_ENDINGS, _KO_PARTICLES, _KO_VERB_ENDINGS, _QUESTION_CUES,
                                       ASKING_MIN_TERMS)
from rag.engines.offline.parts import _MARK, sentences  # question marks that end one asked sentence; statements
from rag.engines.offline.relations import _slot_term
from rag.engines.offline.text import (_HAN, _HANGUL, _contains_phrase, _doc_text_for_grading, _is_number,
                                      _is_required, _norm, _zh_value, chinese_numbers, stated_numbers)
from rag.engines.offline.ranges import credit_held_amounts
from rag.engines.offline.values import _unit_class, stated_values
from rag.engines.offline.vocabulary import GLOSSARY, SYNONYMS
from rag.engines.offline.wordforms import LATIN_TERM, LoanwordIndex, korean_function_words, text_scripts
from rag.romanize import (LATIN_SIDE, MIN_KEY_CHARS, cross_script_match, document_keys, han_name_keys,
                           han_term_name_key, han_term_pinyin_key, name_key, pinyin_name_keys)
from rag.sinokorean import SinoKoreanText
from rag.textutil import KO_WEAK_SINGLE, STEMMABLE, english_stem, key_terms, tokenize
from rag.types import Retrieved

_LATIN_NAME = LATIN_TERM  # a key term in Latin letters (tokenize lowercases them)
SINO_KOREAN = "via Sino-Korean reading"  # Coverage.how of a term found through rag.sinokorean
_KO_UNITS = frozenset("년 월 일 개 명 번 회 시 분 초".split())  # language: counters after a number
# a Chinese term led by a numeral: the number, a large-number word after it, the rest (a unit, or a word "一共")
_ZH_QUANTITY_TERM = re.compile(r"^([零〇一二两三四五六七八九十百千]+)([万亿])?(.*)$")


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
        self._sino: SinoKoreanText | None = None
        self._han_names: set[str] | None = None  # rag.romanize.han_name_keys of the text, made on first use
        self._loanwords: LoanwordIndex | None = None  # consonant skeletons of its words (``loanword``)
        self._stems: set[str] | None = None
        self._values: list | None = None  # values.stated_values of the text, made on first use

    @property
    def stems(self) -> set[str]:
        """English stems of the text's Latin words, made on first use."""
        if self._stems is None:
            self._stems = {english_stem(t) for t in self.tokens if STEMMABLE.fullmatch(t)}
        return self._stems

    @property
    def names(self) -> set[str]:
        """Name keys of the text (``rag.romanize.document_keys``), made on first use."""
        if self._names is None:
            self._names = set(document_keys(self.raw))
        return self._names

    def loanword(self, term: str) -> str:
        """The text's word that spells the name ``term`` in the other script (``wordforms.LoanwordIndex``)."""
        if self._loanwords is None:
            self._loanwords = LoanwordIndex(self.raw)
        return self._loanwords.lookup(term)

    def han_name(self, term: str) -> str:
        """The romanized Sino-Korean reading or the pinyin through which a Latin ``term`` occurs in the text's Chinese
        runs, or a Chinese ``term`` among its capitalised Latin words ("" when neither): seogwipo ↔ 西归浦, 大邱 ↔
        Daegu (``rag.romanize.han_name_keys``), qujiang ↔ 曲江, 苏州 ↔ Suzhou (``pinyin_name_keys``)."""
        if _LATIN_NAME.fullmatch(term) and len(term) >= MIN_KEY_CHARS and _HAN.search(self.raw):
            if self._han_names is None:
                self._han_names = han_name_keys(self.raw) | pinyin_name_keys(self.raw)
            key = name_key(term)
            return key if key in self._han_names else ""
        if _HAN.search(term):
            for key in (han_term_name_key(term), han_term_pinyin_key(term)):
                if key and LATIN_SIDE + key in self.names:
                    return key
        return ""

    @property
    def sino(self) -> SinoKoreanText:
        """The text's Hangul tokens and Chinese runs in the canonical reading (``rag.sinokorean``), made on first
        use."""
        if self._sino is None:
            self._sino = SinoKoreanText(self.tokens, self.norm)
        return self._sino

    def states_quantity(self, term: str) -> bool:
        """A Chinese term led by a numeral and a unit ("两周", "五千万元") is a number, language-independent: the text
        states it when it states the same number with a large-number word of the same ("5,000 万"), or the same
        number in the unit the term names, in any language ("two weeks", "2주", "2 weeks"). A term whose rest is no
        unit ("一共", "一直": words written with a numeral) is not read as a number, nor is a bare numeral ("三十" of
        "三十来度", split from its unit: any 30 would match it)."""
        m = _ZH_QUANTITY_TERM.match(term)
        if not m:
            return False
        number, magnitude, rest = str(_zh_value(m.group(1))), m.group(2) or "", m.group(3)
        if magnitude:  # the number before 万 / 亿, thousands separators dropped ("5,000 万元")
            plain = re.sub(r"(?<=\d),(?=\d{3})", "", self.norm)
            return re.search(rf"(?<![\d.]){number}\s?{magnitude}", plain) is not None
        unit = _unit_class(rest) if rest else ""
        if not unit:
            return False
        if self._values is None:
            self._values = stated_values(self.norm)
        return any((v.unit == unit or v.kind == unit == "money") and number in stated_numbers(v.text)
                   for v in self._values)

    def match(self, term: str) -> tuple[float, str]:
        """(credit 0..1, how) for one key term: exact 1.0, glossary translation 1.0, partial Korean 0.5."""
        if _is_number(term):
            if re.search(rf"(?<![\d.]){re.escape(term)}(?![\d])", self.norm):
                return 1.0, "exact"
            if _HAN.search(self.norm) and term in chinese_numbers(self.norm):
                return 1.0, "as a Chinese numeral"  # "3" in "三年内"
            return 0.0, ""
        if term in self.tokens or _contains_phrase(self.norm, term):
            return 1.0, "exact"
        if _HAN.search(term) and self.states_quantity(term):
            return 1.0, "as the same number"  # "两周" in "two weeks", "五千万" in "5,000 万"
        translations = _glossary_translations(term)
        for other in translations + list(SYNONYMS.get(term, ())):
            if len(other) == 1 and _HANGUL.search(other):
                # one syllable: whole words only; a translation that is a counter after numbers ("year" → 년) is
                # no evidence ("2023년부터" is not about years)
                if other in self.tokens and not (other in _KO_UNITS and other in translations):
                    return 1.0, f"via '{other}'"
            elif _contains_phrase(self.norm, other):
                return 1.0, f"via '{other}'"
        if STEMMABLE.fullmatch(term) and english_stem(term) in self.stems:  # "instruments" ↔ "instrument"
            return 1.0, f"via stem '{english_stem(term)}'"
        name = cross_script_match(term, self.names)  # a name written in the other script (rag.romanize)
        if name:
            return 1.0, f"via romanized '{name}'"
        name = self.loanword(term) if _HANGUL.search(term) else ""  # 콜드트랙 ↔ Coldtrack (Latin terms: credit_months)
        if name:
            return 1.0, f"via loanword spelling '{name}'"
        name = self.han_name(term)  # a Korean name written in Chinese characters (西归浦 ↔ Seogwipo)
        if name:
            return 1.0, f"via romanized reading '{name}'"
        credit, key = self.sino.match(term)  # 隔离 ↔ 격리 (rag.sinokorean)
        if credit:
            return credit, f"{SINO_KOREAN} '{key}'"
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

    def as_written(self) -> "Coverage":
        """The same coverage without the terms found only through the Sino-Korean reading (``SINO_KOREAN``): what
        answer selection ranks by, as grading does; the reading still shows in grade reasons and partial answers."""
        keep = {t for t, how in self.how.items() if not how.startswith(SINO_KOREAN)}
        return Coverage(self.terms, {t: c for t, c in self.credit.items() if t in keep},
                        {t: h for t, h in self.how.items() if t in keep}, self.focus)

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


_HOW_WORD = re.compile(r"\b[Hh]ow\s+([a-z]+)\b(?:(?<=long)[^?.,;]*?\b(take|takes|took|taken)\b)?")


def question_terms(question: str) -> tuple[list[str], set[str]]:
    """(key terms of the question, the ones in its asking clause).

    Key terms come from ``textutil.key_terms``; Korean endings are stripped and filler words (question
    stems like 얼마/며칠, "있어", "much") dropped. The asking clause is the clause with the question word;
    a lead-in clause ("연봉 계약할 때 참고하려고 하는데, …") only adds context.
    """
    function = {_stem(t) for word in korean_function_words(question) for t in key_terms(word)}
    # language: the word after "how" is part of the question word ("how long", "how far", "how late"), and so is the
    # verb of "how long does it take": the answer states the length, not the words ("within two business days")
    asked_how = {_stem(w) for m in _HOW_WORD.finditer(question) for w in m.groups() if w}

    def clean(text: str) -> list[str]:
        out: list[str] = []
        for t in key_terms(text):
            t = _stem(t)
            # a counter or particle left alone by stripping ("명이었어" → 명) is no evidence, as in key_terms
            if (not t or t in KO_WEAK_SINGLE or t in _FILLER_WORDS or t in COMPARISON_WORDS
                    or t.startswith(_FILLER_PREFIXES) or t in out or t in function or t in asked_how):
                continue
            out.append(t)
        return out

    terms = clean(question)
    if function and sum(1 for t in terms if not _is_number(t)) < 2:
        function = set()  # "혼자 가도 돼요?", "모두 몇 명이에요?": too little else is asked to do without them
        terms = clean(question)
    focus = _asking_focus([c for c in _CLAUSE_SPLIT.split(question) if c and c.strip()], terms, clean)
    # a statement before the question ("I just started this week. On which day …", "다음 주에 입사해요. 첫날 …") is a
    # clause of its own: it says who asks, the question says what; kept only when the rest names enough to weigh
    # by (rules.ASKING_MIN_TERMS: "…six weeks out. What would that cost us?" does not)
    said = sentences(question)
    if len(said) >= 2:
        narrower = _asking_focus([c for x in said for c in _CLAUSE_SPLIT.split(x) if c and c.strip()], terms, clean)
        if sum(1 for t in narrower & focus if not _is_number(t)) >= ASKING_MIN_TERMS:
            focus = narrower & focus
    return terms, _without_premise(question, terms, focus, clean)


def _asking_focus(clauses: list[str], terms: list[str], clean) -> set[str]:
    """The terms of the clauses that ask (``_QUESTION_CUES``); every term when all clauses ask, or none does."""
    asking = [c for c in clauses if _QUESTION_CUES.search(c.lower())]
    if len(clauses) < 2 or not asking or len(asking) == len(clauses):
        return set(terms)
    return {t for c in asking for t in clean(c)} or set(terms)


# language: a yes / no question that states a belief for the answer to correct ("CampusID 때문 아니었어?", "서버 때문이라고
# 하지 않았어요?", "Wasn't it the truck's fridge?", "不是因为服务器吗？"); the question beside it asks what is asked
_PREMISE = re.compile(r"(?:아니었|아니야|아닌가|아니에요|아니냐|지\s?않았|지\s?않나)[가-힣]*\s*[?？]\s*$|"
                      r"^\s*(?:wasn't|weren't|isn't|didn't|doesn't|aren't|hasn't|haven't)\b.*[?？]\s*$|"
                      r"(?:不是|難道|难道)[^?？]*[吗嗎][?？]\s*$", re.I)


def _without_premise(question: str, terms: list[str], focus: set[str], clean) -> set[str]:
    """The focus without a premise's words ("해외 여행사이트 서버" in "…, 해외 여행사이트 서버 때문이라고 하지
    않았어요? 진짜로는 뭐가 문제였던 거죠?"): the answer corrects the premise and need not repeat it, so the words
    of every other clause are the focus, a lead-in's too ("진짜로는 뭐가 문제였던 거죠?" alone says little). The
    focus is kept when no other clause asks anything."""
    parts = [c for x in _MARK.split(question) for c in _CLAUSE_SPLIT.split(x) if c and c.strip()]
    premises = [c for c in parts if _PREMISE.search(c.strip().replace("’", "'"))]
    asking = [c for c in parts if c not in premises and "?" in c.replace("？", "?")]
    if not premises or not asking:
        return focus
    kept = set(terms)
    return {t for c in parts if c not in premises for t in clean(c) if t in kept} or focus


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
    there is no evidence; numbers, names and words the text does contain always count. Whether the text is written
    in a term's script is judged sentence by sentence (``text_scripts``), not by the presence of any one character
    of that script. The share (0..1) says how far lexical coverage can be trusted for this text; the rest is left
    to the semantic signal."""
    scripts = text_scripts(text)
    out: list[str] = []
    for t in terms:
        # a Chinese word found in Hangul by its reading (or a Korean word in Chinese characters) is evidence of its
        # own, but it does not make the text one written in the question's script: the grade weighs such a text by
        # meaning as before (weighing the reading as lexical evidence made more confident wrong answers on the dev
        # corpora, docs/evaluation.md, fifth round)
        if (cov.credit.get(t, 0.0) > 0 and not cov.how.get(t, "").startswith(SINO_KOREAN)) or _is_number(t):
            ok = True
        elif _HANGUL.search(t):
            ok = "ko" in scripts
        elif _HAN.search(t):
            ok = "zh" in scripts
        else:
            ok = "en" in scripts or _name_like(t, question)
        if ok:
            out.append(t)
    content = cov.content_terms
    if not content:
        return out, 1.0
    return out, sum(1 for t in content if t in out) / len(content)


def term_script(term: str) -> str:
    return "ko" if _HANGUL.search(term) else "zh" if _HAN.search(term) else "en"


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_ASKED_MONTH = re.compile(r"(?<![\d.])(1[0-2]|0?[1-9])\s*(?:월|月)")


def credit_months(question: str, text: str, cov: Coverage) -> Coverage:
    """A month of the question written as a number ("10월", "10月") is found in a text that names the same month in
    another language ("October", "Oct", "10월", "10月"): the number is then not missing (language, not tuned). So is
    an amount of the asker's own case ("12岁的玩家") that a range of the text holds ("8 周岁以上未满 16 周岁":
    ``ranges.credit_held_amounts``), and a Latin name of the question the text spells in Hangul (``_Text.loanword``)."""
    credit_held_amounts(question, text, cov)
    for t in cov.terms:  # a Latin name of the question spelled in Hangul by the text ("Coldtrack" ↔ 콜드트랙)
        if cov.credit.get(t, 0.0) <= 0 and _LATIN_NAME.fullmatch(t) and _name_like(t, question):
            name = prepared_text(text).loanword(t)
            if name:
                cov.credit[t], cov.how[t] = 1.0, f"via loanword spelling '{name}'"
    months = {str(int(m.group(1))) for m in _ASKED_MONTH.finditer(question)}
    if not months:
        return cov
    norm = prepared_text(text).norm
    for t in cov.terms:
        if t in months and cov.credit.get(t, 0.0) <= 0:
            n = int(t)
            name = _MONTHS[n - 1]
            forms = (f"{n}월", f"{n} 월", f"{n}月", f"{n} 月")
            if (re.search(rf"(?<![a-z]){name[:3]}(?:{name[3:]}|\.)?(?![a-z])", norm)
                    or any(f in norm for f in forms)):
                cov.credit[t], cov.how[t] = 1.0, f"via month '{name}'"
    return cov
