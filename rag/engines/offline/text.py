"""Small text helpers shared by the offline engine's modules: language, normalisation, phrases, sentences,
citation labels."""
from __future__ import annotations

import re
import unicodedata
from typing import Any, Sequence

from rag.engines.offline.rules import SMALL_TALK, STATISTIC_TERMS, STOP_ENTITY_NAMES
from rag.textutil import append_unwrapped, split_sentences
from rag.textutil import script_language as language_of  # noqa: F401 (the offline engine's name for it)
from rag.types import Retrieved

# a phrase in quotes: '…', "…", ‘…’, “…”, 「…」, 『…』 (notation, not tuned)
_QUOTED = re.compile(r"(?<![A-Za-z])'[^'\n]{1,80}'(?![A-Za-z])|\"[^\"\n]{1,80}\"|‘[^’\n]{1,80}’|“[^”\n]{1,80}”|"
                     r"「[^」\n]{1,80}」|『[^』\n]{1,80}』")


def greeting_in(question: str) -> re.Match | None:
    """The greeting or thanks of a message (rules.SMALL_TALK), outside quotes: a quoted phrase is what the message is
    about ("'감사합니다'를 중국어로 번역해 줘"), not a greeting to us. Routing and the direct answer both ask this."""
    return SMALL_TALK.search(_QUOTED.sub(" ", question))


_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def _norm(text: str) -> str:
    return _THOUSANDS.sub("", unicodedata.normalize("NFKC", text).lower())


def _is_number(term: str) -> bool:
    return bool(_NUMBER.match(term))



def _is_required(term: str) -> bool:
    """Numbers, years and statistics of the question must be in a document graded correct."""
    return _is_number(term) or term in STATISTIC_TERMS


def _contains_phrase(norm_text: str, phrase: str) -> bool:
    phrase = _norm(phrase)
    if not phrase:
        return False
    if re.fullmatch(r"[a-z0-9][a-z0-9 .\-_]*", phrase):  # Latin: whole words only ("rag" not in "crag")
        return re.search(rf"(?<![a-z0-9]){re.escape(phrase)}(?![a-z0-9])", norm_text) is not None
    return phrase in norm_text


def _specific(name: str) -> bool:
    """An entity name specific enough to anchor a question ("Orbit", not "Team")."""
    n = _norm(name).strip()
    return len(n) >= 2 and n not in STOP_ENTITY_NAMES


def _quote(terms: Sequence[str], limit: int = 6) -> str:
    shown = ", ".join(f"'{t}'" for t in list(terms)[:limit])
    return shown + (f" (+{len(terms) - limit})" if len(terms) > limit else "")


def _clean_sentence(sentence: str) -> str:
    s = re.sub(r"^\s*(?:[-*•]|\d+[.)]|#+)\s*", "", sentence).strip()
    return s


def _sentences(text: str) -> list[str]:
    """Sentences of a chunk. A line wrapped inside a sentence is joined to the next one; headings and list
    items (short lines, "1. …", "- …", "# …") stay on their own."""
    merged: list[str] = []
    for line in (raw.strip() for raw in text.strip().splitlines()):
        append_unwrapped(merged, line)
    return split_sentences("\n".join(merged)) or [text]


def is_fact(doc: Retrieved) -> bool:
    """A graph fact (a triple with its evidence sentence); the graph search also returns the sentence a described
    entity was found in (rag.tools.graph), which is judged as any retrieved sentence."""
    return doc.tool == "graph" and len((doc.metadata or {}).get("triple") or []) == 3


def _doc_text_for_grading(doc: Retrieved) -> str:
    """A graph fact is judged on its triple and its evidence sentence."""
    parts = [doc.text]
    meta = doc.metadata or {}
    for key in ("evidence", "source_entity", "target_entity", "subject", "object", "predicate"):
        value = meta.get(key)
        if isinstance(value, str) and value and value not in doc.text:
            parts.append(value)
    return "\n".join(parts)


def _label_of(grades: Sequence[Any] | None, i: int) -> str | None:
    if grades is None or i >= len(grades) or grades[i] is None:
        return None
    return getattr(grades[i], "label", None)


def _cite_label(doc: Retrieved) -> str:
    where = f"{doc.source}"
    if doc.chunk_index is not None:
        where += f" #{doc.chunk_index}"
    return where


_ARABIC = re.compile(r"\d+(?:\.\d+)?")
_ZH_NUMERAL = re.compile(r"[零〇一二两三四五六七八九十百千万]+")
_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}


def _zh_value(numeral: str) -> int:
    """The value of a Chinese numeral ("三" 3, "十二" 12, "两百" 200, "一万五千" 15000). Words written with
    numeral characters ("万一") read as numbers too; they only matter where a question names that number."""
    total, section, digit = 0, 0, None
    for ch in numeral:
        if ch in _ZH_DIGITS:
            digit = _ZH_DIGITS[ch] if digit is None else digit * 10 + _ZH_DIGITS[ch]
        elif ch == "万":
            total += (section + (digit or 0)) * 10000 or 10000
            section, digit = 0, None
        else:
            section += (1 if digit is None else digit) * _ZH_UNITS[ch]
            digit = None
    return total + section + (digit or 0)


def chinese_numbers(text: str) -> set[str]:
    """The values of the Chinese numerals in a text, as digit strings ("三年内" → {"3"})."""
    return {str(_zh_value(m.group(0))) for m in _ZH_NUMERAL.finditer(text)}


# English number words two … twelve ("two weeks" states 2, as 两周 and 2주 do); not "one", which English also uses
# as a pronoun ("no one", "one of them"). Language, not tuned.
_EN_NUMBER_WORDS = {w: str(i) for i, w in
                   enumerate("two three four five six seven eight nine ten eleven twelve".split(), start=2)}
_EN_NUMBER_WORD = re.compile(rf"\b({'|'.join(_EN_NUMBER_WORDS)})\b", re.I)


def stated_numbers(text: str) -> set[str]:
    """The numbers a text states, as digit strings: Arabic numerals without thousands separators ("12,000" →
    "12000"), Chinese numerals by value ("三年" → "3") and English number words ("two weeks" → "2"). Language
    rules, not tuned."""
    t = _norm(text)
    words = {_EN_NUMBER_WORDS[m.group(1).lower()] for m in _EN_NUMBER_WORD.finditer(t)}
    return {m.group(0) for m in _ARABIC.finditer(t)} | chinese_numbers(t) | words
