"""A bridge between Chinese characters and Hangul: the Sino-Korean reading of each character.

About half of the Korean vocabulary, and most of its nouns for institutions, procedures and measures, are
Sino-Korean: 격리 is 隔離 (Simplified 隔离), 수술 is 手術 (手术), 예약 is 預約 (预约), 번역 is 翻譯 (翻译). A Chinese
question over a Korean document, or a Korean one over a Chinese document, shares no token with it and the glossary
only knows the sample documents' words, yet each Chinese character has one Korean reading. The reading table is the
`hanja` package's (27,000 characters); Simplified Chinese is first turned into Traditional with OpenCC's phrase
dictionaries (`opencc-python-reimplemented`), since some simplified characters are also other traditional ones.

Both sides are compared in one canonical form: each syllable is written as it reads at the start of a word (the
initial-sound rule 두음법칙: 리 → 이, 려 → 여, 녀 → 여, 로 → 노), because a character's reading at the start of a
Korean word differs from its reading inside one (旅行 is 여행, 隔离 is 격리) while a Chinese text gives no word edges.
A few syllables merge (리 and 이 are both 이); a match still needs every syllable of a term in order.

- ``reading(han)``: canonical Hangul reading of a Chinese string (characters without a reading are kept).
- ``canonical(hangul)``: the same canonical form of a Korean word.
- ``han_term_key(term)``: a Chinese key term as the Korean token it would be ("" when a character has no reading).
- ``han_readings(text)``: the canonical readings of a text's Chinese runs, space-separated, to look Korean terms up in.

Only the offline engine's key-term coverage uses it (``rag.engines.offline.coverage``): a term matched this way is
reported "via Sino-Korean reading '…'" in the grade reason. Readings of native Korean or loan words never match
(데스크, 얼마), and neither do the Chinese words that Korean does not share (医院 reads 의원, Korean says 병원).
"""
from __future__ import annotations

import re
from functools import lru_cache

PARTIAL_SHARE = 0.66  # of a Korean compound's syllable pairs (2 of 3); not tuned
_HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_SYLLABLE_BASE, _SYLLABLE_LAST = 0xAC00, 0xD7A3
_VOWELS_PER_INITIAL = 21 * 28
# initial-sound rule (두음법칙): initial ㄹ → ㄴ, and ㄴ → ㅇ before ㅣ and the y-vowels
_L, _N, _IEUNG = 5, 2, 11
_Y_VOWELS = frozenset((2, 3, 6, 7, 12, 17, 20))  # ㅑ ㅒ ㅕ ㅖ ㅛ ㅠ ㅣ


@lru_cache(maxsize=1)
def _table() -> dict[str, str]:
    try:
        from hanja.table import hanja_table  # loaded on first use (a 0.5 MB table)
    except ImportError as exc:  # pragma: no cover - installed by scripts/setup.sh
        from rag.types import RagError

        raise RagError("The Sino-Korean reading table needs the hanja package: "
                       "pip install --no-deps -r requirements-nodeps.txt (scripts/setup.sh does this)") from exc
    return hanja_table


@lru_cache(maxsize=1)
def _to_traditional():
    from opencc import OpenCC  # opencc-python-reimplemented: OpenCC's dictionaries, pure Python

    return OpenCC("s2t").convert


@lru_cache(maxsize=4096)
def _traditional(han: str) -> str:
    """Simplified → Traditional with OpenCC's phrase dictionaries, so that a simplified character that is also a
    different traditional one reads as the word means: 手术 → 手術 (수술), not 术 (출)."""
    out = _to_traditional()(han)
    return out if len(out) == len(han) else han


def _canonical_syllable(ch: str) -> str:
    code = ord(ch)
    if not _SYLLABLE_BASE <= code <= _SYLLABLE_LAST:
        return ch
    index = code - _SYLLABLE_BASE
    initial, rest = divmod(index, _VOWELS_PER_INITIAL)
    vowel = rest // 28
    if initial == _L:
        initial = _IEUNG if vowel in _Y_VOWELS else _N
    if initial == _N and vowel in _Y_VOWELS:
        initial = _IEUNG
    return chr(_SYLLABLE_BASE + initial * _VOWELS_PER_INITIAL + rest)


def canonical(hangul: str) -> str:
    """A Korean word with every syllable as it reads at the start of a word ("격리" → "격이", "여행" stays)."""
    return "".join(_canonical_syllable(ch) for ch in hangul)


def reading(han: str) -> str:
    """Canonical Hangul reading of a Chinese string ("隔离" → "격이", "预约" → "예약"); other characters are kept."""
    table = _table()
    return canonical("".join(table.get(ch, ch) for ch in _traditional(han)))


def han_term_key(term: str) -> str:
    """A Chinese key term as a canonical Korean token, or "" when it is not all Chinese characters with readings."""
    if not term or not _HAN_RUN.fullmatch(term):
        return ""
    table = _table()
    if any(ch not in table for ch in _traditional(term)):
        return ""
    return reading(term)


def han_readings(text: str) -> str:
    """The canonical readings of the text's Chinese runs, one per run, space-separated ("" without Chinese)."""
    return " ".join(reading(run) for run in _HAN_RUN.findall(text))


_HANGUL = re.compile(r"[\uac00-\ud7a3]")


class SinoKoreanText:
    """A text prepared for Sino-Korean matching: the canonical forms of its Hangul tokens and the canonical readings of
    its Chinese runs (each made once)."""

    def __init__(self, tokens: set[str], norm: str) -> None:
        self.hangul = {canonical(t) for t in tokens if _HANGUL.search(t)}
        self.readings = han_readings(norm) if _HAN_RUN.search(norm) else ""

    def match(self, term: str) -> tuple[float, str]:
        """(credit, reading) of a Chinese term in a Korean text or a Korean term in a Chinese text: 1.0 for the whole
        term, 0.5 when 2 of 3 syllable pairs of a longer Korean term are read there (격리병동 ↔ 隔离病房)."""
        if _HAN_RUN.search(term):
            key = han_term_key(term)
            return (1.0, key) if len(key) >= 2 and key in self.hangul else (0.0, "")
        if not self.readings or len(term) < 2 or not _HANGUL.fullmatch(term[0]):
            return 0.0, ""
        key = canonical(term)
        if key in self.readings:
            return 1.0, key
        if len(key) >= 3:
            grams = [key[i : i + 2] for i in range(len(key) - 1)]
            if sum(1 for g in grams if g in self.readings) / len(grams) >= PARTIAL_SHARE:
                return 0.5, key
        return 0.0, ""
