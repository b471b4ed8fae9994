"""``find_mentions``: the names of one sentence in every language, plus quoted terms, without generic words; where
spans overlap the longest wins, and each keeps the Korean particle after it."""
from __future__ import annotations

import re

from rag.extract.kinds import _entity_type
from rag.extract.mention import _KO_PARTICLE_RE, MAX_ENTITY_CHARS, Mention
from rag.extract.mentions_en import _latin_mentions
from rag.extract.mentions_ko import _alias_head_mentions, _known_mentions, _korean_mentions
from rag.extract.mentions_zh import _chinese_mentions
from rag.extract.names import is_generic


_QUOTED_RE = re.compile(r"[\"“]([^\"“”\n]{2,30})[\"”]|[「『《]([^」』》\n]{2,30})[」』》]|(?<![A-Za-z])‘([^‘’\n]{2,30})’")


def _quoted_mentions(sentence: str) -> list[Mention]:
    """Quoted names; quoted phrases that read like a sentence or a formula are skipped."""
    out = []
    for m in _QUOTED_RE.finditer(sentence):
        for g in (1, 2, 3):
            term = (m.group(g) or "").strip()
            if not term or len(term.split()) > 4 or re.search(r"[→=<>?!。.,:\[\]{}()]|[가다요까]$", term) \
                    or term[0].isdigit() or not re.search(r"[A-Za-z\uac00-\ud7a3\u4e00-\u9fff]", term):
                continue
            if m.group(g):
                out.append(Mention(m.start(g), m.end(g), m.group(g).strip(), _entity_type(m.group(g))))
    return out


def _merge(mentions: list[Mention], sentence: str) -> list[Mention]:
    """Longest mention wins where spans overlap; particles recorded; ordered by position."""
    mentions = sorted(mentions, key=lambda m: (m.start, -(m.end - m.start)))
    kept: list[Mention] = []
    for m in mentions:
        if not m.name or len(m.name) > MAX_ENTITY_CHARS:
            continue
        if kept and m.start < kept[-1].end:
            if (m.end - m.start) > (kept[-1].end - kept[-1].start):
                kept[-1] = m
            continue
        kept.append(m)
    for m in kept:
        pm = _KO_PARTICLE_RE.match(sentence[m.end:])
        m.particle = re.sub(r"\s+", "", pm.group("p")) if pm else ""
    return kept


def find_mentions(sentence: str, known_names: frozenset[str] = frozenset(),
                  known_korean: frozenset[str] = frozenset()) -> list[Mention]:
    """Entity mentions in one sentence, in order, with the Korean particle that follows each.
    ``known_names``: capitalised words the surrounding text uses mid-sentence (see ``mid_sentence_names``);
    ``known_korean``: Korean names already recognised elsewhere in the text."""
    found = _latin_mentions(sentence, known_names) + _korean_mentions(sentence) + _quoted_mentions(sentence) \
        + _known_mentions(sentence, known_korean) + _chinese_mentions(sentence) + _alias_head_mentions(sentence)
    return _merge([m for m in found if not is_generic(m.name) or _named_unit(m, sentence)], sentence)


# language: the last word of an English unit's name ("the Client Services Team", "Tamna's Systems Unit")
_UNIT_WORDS = frozenset("team unit office department division group desk lab laboratory centre center committee".split())


def _named_unit(m: Mention, sentence: str) -> bool:
    """A unit named in generic words but capitalised inside the sentence: "belongs to the Client Services Team" names
    a team (at a sentence's or heading's start, "Teams and Products" names nothing)."""
    words = m.name.split()
    body = len(sentence) - len(re.sub(r"^[\s#>*+•·\-|]*(?:\d+[.)]\s*)?", "", sentence))
    return (len(words) >= 2 and words[-1].casefold() in _UNIT_WORDS and m.start > body + 2
            and all(w[:1].isupper() for w in words if w.casefold() not in ("and", "of", "&"))
            and not (len(words) == 2 and words[0].casefold() in _PLACE_OF_WORK))  # "the Head Office" names no unit


# language: words that make "<word> Office / Desk" a kind of place, not a unit's name
_PLACE_OF_WORK = frozenset("head main registered branch front back post home".split())
