"""Korean names: runs of kiwipiepy proper-noun tokens ("에이펙스 랩스", "노바-7") with an attached common noun or an
organisation suffix ("서울 대학교", "품질관리팀"); a Hangul word written with a parenthesised Latin name; and Korean
names of the chunk found again by string match."""
from __future__ import annotations

import re

from rag.extract.kinds import _ORG_SUFFIXES_KO, _entity_type
from rag.extract.kiwi import _get_kiwi
from rag.extract.mention import MAX_ENTITY_CHARS, Mention
from rag.extract.names import _KO_ORG_WORDS, _has_hangul, is_generic


# language: words that make "X팀" a reference, not a name ("해당 팀", "우리팀", "각 부서")
_KO_NOT_A_NAME = re.compile(r"^(?:해당|우리|각|모든|전체|다른|같은|상위|하위|관련)")

_KO_JOIN_TAGS = {"NNP", "NNG", "SL", "SN", "SH", "SO", "XSN"}


def _korean_mentions(sentence: str) -> list[Mention]:
    if not _has_hangul(sentence):
        return []
    tokens = _get_kiwi().tokenize(sentence)
    found: list[Mention] = []
    run: list = []

    def flush() -> None:
        # a run is a name when kiwi saw a proper noun in it, or when it is a model-style name
        # ("노바-7": syllables, a hyphen and digits, all attached)
        model_like = any(t.tag == "SO" and t.form == "-" for t in run) and any(t.tag == "SN" for t in run) \
            and all(b.start == a.start + a.len for a, b in zip(run, run[1:]))
        # "품질관리팀", "고객지원팀": attached common nouns ending in an organisation word name a unit
        org_like = run and run[-1].form in _KO_ORG_WORDS and run[-1].tag == "NNG" \
            and all(b.start == a.start + a.len for a, b in zip(run, run[1:]))
        if not run or not (any(t.tag == "NNP" for t in run) or model_like or org_like):
            run.clear()
            return
        # trim trailing common nouns that are separated by a space and are not organisation suffixes
        while len(run) > 1 and run[-1].tag == "NNG" and run[-1].start > run[-2].start + run[-2].len \
                and run[-1].form not in _ORG_SUFFIXES_KO:
            run.pop()
        while run and run[-1].tag in ("SO",):
            run.pop()
        # "뒤 평가기": a common noun before a space does not belong to the name
        while len(run) > 1 and run[0].tag == "NNG" and run[1].start > run[0].start + run[0].len:
            run.pop(0)
        start, end = run[0].start, run[-1].start + run[-1].len
        # "업체 다솜소프트가" read as "업체이다 + 솜소프트": a name does not start inside a word after a verb ending
        word_start = start
        while word_start > 0 and re.match(r"[\uac00-\ud7a3]", sentence[word_start - 1]):
            word_start -= 1
        if word_start < start and (org_like or all(t.tag in ("VCP", "EF", "EC", "ETM") for t in tokens
                                                   if word_start <= t.start < start)):
            start = word_start  # a unit's name is the whole word ("한결과학재단", where kiwi read 한결 as an adverb)
        text = sentence[start:end].strip()
        if org_like and not any(t.tag == "NNP" for t in run) and (len(text) < 3 or _KO_NOT_A_NAME.match(text)):
            run.clear()
            return
        if 2 <= len(text) <= MAX_ENTITY_CHARS and _has_hangul(text):
            found.append(Mention(start, end, text, _entity_type(text)))
        run.clear()

    for tok in tokens:
        if tok.tag in _KO_JOIN_TAGS:
            if run:
                prev_end = run[-1].start + run[-1].len
                gap = sentence[prev_end:tok.start]
                attached = gap == ""
                # a space may separate two proper nouns, or a proper noun and an organisation suffix
                spaced_ok = gap == " " and (tok.tag == "NNP" or tok.form in _ORG_SUFFIXES_KO)
                if tok.tag in ("SO",) and tok.form not in ("-", "_", "."):
                    flush()
                    continue
                if attached or spaced_ok:
                    run.append(tok)
                    continue
                flush()
            if tok.tag in ("NNP", "NNG", "SL", "SN", "SH"):
                run.append(tok)
        else:
            flush()
    flush()
    return found


# "솔빛천문관(Solbit Planetarium)": the Latin name is capitalised words ("생성(RAG)" spells out a term, not a name)
_KO_BEFORE_ALIAS_RE = re.compile(r"(?<![\uac00-\ud7a3])([\uac00-\ud7a3]{2,12})\s*[(（]\s*[A-Z][a-z]+(?:[\s-][A-Z][a-z]+)*"
                                 r"\s*[)）]")


def _alias_head_mentions(sentence: str) -> list[Mention]:
    """"솔빛천문관(Solbit Planetarium)": a Hangul word written with a parenthesised Latin name is a name, whatever
    kiwi tagged it."""
    out = []
    for m in _KO_BEFORE_ALIAS_RE.finditer(sentence):
        name = m.group(1)
        if not is_generic(name):
            out.append(Mention(m.start(1), m.end(1), name, _entity_type(name)))
    return out


def _known_mentions(sentence: str, known_korean: frozenset[str]) -> list[Mention]:
    """Korean names found elsewhere in the chunk, found again here by string match: kiwi tags an
    unknown name as a proper noun in one sentence and as a common noun in the next."""
    out = []
    for name in known_korean:
        for m in re.finditer(re.escape(name), sentence):
            if m.start() == 0 or not re.match(r"[\uac00-\ud7a3A-Za-z0-9]", sentence[m.start() - 1]):
                out.append(Mention(m.start(), m.end(), name, _entity_type(name)))
    return out
