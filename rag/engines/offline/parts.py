"""A question that asks several things: "苏州店订蛋糕要提前几天？定金交多少？", "What do I need to bring, and how long
is the course?". Each part is answered by its own sentence; an extractive answer that quotes the best sentences for
the whole question often states one part only (selection.py quotes the best sentence of each part too).

The split is a rule of the languages (question marks; "and" before an English question word; a Chinese comma; a
Korean clause joined by 고 / 며 before a comma, or by 고 alone between two clauses that each ask), not fitted to any
corpus. A part must ask something of its own — a question word, or a value (``answertype.asked_type``) — so "알려
주세요." or a leading statement ("Starting at a store next week.") is context, not a part.

The one splitter of the offline engine: selection.py quotes a sentence per part, gapfill.py (naive's F3) composes
an answer for a part its context never states (with its own further condition: two key terms per part).

``sentences`` / ``asking_text``: the statements a question starts with ("I start next Monday as a junior designer.
How much …") and the sentence that asks; coverage.py weighs the statements' words half, the vector tool searches the
asking sentence on its own. ``asking_clause``: that sentence without a lead-in clause that says who asks ("…합류했는데요,
…"); routing and a comparison's sides read it.
"""
from __future__ import annotations

import re

from rag.engines.offline.answertype import asked_type
from rag.engines.offline.rules import ASKING_MIN_TERMS, _QUESTION_WORDS
from rag.textutil import key_terms

# a question mark that ends one part while more text follows (ASCII or full-width)
_MARK = re.compile(r"(?<=[?？])\s*(?=\S)")
# ", and how long …", " and roughly what …", "and by how much": "and" before an English question word (one word may
# come between) starts a new part; a comma alone does not (", which …" opens a relative clause)
_EN_WH = r"(?:how|what|when|where|which|who|whom|whose|why)"
_EN_JOIN = re.compile(rf",?\s+and\s+(?:[a-z]+\s+)?(?={_EN_WH}\b)", re.I)
# a Chinese comma, or a Korean clause joined by 고 / 며 before a comma ("팀장은 누구이고, 그는 어디서 일해?"); a piece
# that asks nothing ("我想订蛋糕，", "참고하려고 하는데,") is dropped below
_CJK_JOIN = re.compile(r"[，；;]\s*|(?<=[가-힣])(?:이고|이며|고|며),\s*")
_KO_WH = r"몇|얼마|언제|어디|누구|누가|무엇|뭐|무슨|어느|어떤|어떻게|왜"  # Korean question words
# a sentence that asks: a question word of ko / en / zh, or a question mark
_ASKS = re.compile(rf"[?？]|\b(?:how|what|when|where|which|who|whom|whose|why)\b|{_KO_WH}|"
                   r"多少|几|幾|什么|什麼|哪|谁|誰|怎么|怎麼|为什么|為什麼|何时|多久|多长|吗|嗎|呢", re.I)
_MIN_CHARS = 4


# a Korean question joined to the next by 고 with no comma ("세척제는 몇 퍼센트로 타고 펌프로는 얼마나 오래 돌려야 해요?"):
# split only where the clause before it asks (a question word) and the rest asks too — "환불 받고 싶은데 며칠 걸려요?"
# stays whole, its clause before "고" asks nothing
_KO_JOIN = re.compile(r"(?<=[가-힣])(?:이고|고)\s+")
_KO_ASKS = re.compile(rf"며칠|{_KO_WH}")


def _korean_joined(piece: str) -> list[str]:
    out: list[str] = []
    start = 0
    for m in _KO_JOIN.finditer(piece):
        if _KO_ASKS.search(piece[start:m.start()]) and _KO_ASKS.search(piece[m.end():]):
            out.append(piece[start:m.start()] + "고")
            start = m.end()
    out.append(piece[start:])
    return out


# language: one question asked of two things joined by 랑 / 와 / 하고 or 和 / 与 / 跟, "각각" / "分别" / "各" after them
# ("수수료율이랑 관리 지원비는 각각 얼마예요?", "6寸和8寸的蛋糕分别多少钱？"): each thing with the asking words is a part
_EACH = re.compile(r"\s*(?:각각|각자|分别|各自|各(?=占|要|是|为|多少|几|有多|需))\s*")
_KO_AND = re.compile(r"(?<=[가-힣A-Za-z0-9)])(?:이랑|랑|하고|와|과)\s+")
_ZH_AND = re.compile(r"和|与|跟|以及")


def _each_parts(question: str) -> list[str]:
    """The two parts of a question that asks one thing of two things "각각" / "分别" / "各"; [] when it is not one (the
    things must be exactly two, each of two characters or more, and words must follow the cue)."""
    clause = asking_clause(question)
    m = _EACH.search(clause)
    if m is None:
        return []
    head, tail = clause[:m.start()], clause[m.end():].strip()
    sides = [x.strip(" ,，") for x in (_KO_AND if re.search(r"[가-힣]", head) else _ZH_AND).split(head)]
    if len(sides) != 2 or min(len(x) for x in sides) < 2 or not tail:
        return []
    return [f"{x} {tail}" for x in sides]


def asked_parts(question: str) -> list[str]:
    """The parts of a question that asks several things, in order; [question] when it asks one."""
    pieces: list[str] = []
    for chunk in _MARK.split(question.strip()):
        for piece in _EN_JOIN.split(chunk):
            for p in _CJK_JOIN.split(piece):
                pieces.extend(_korean_joined(p) if p else [])
    parts = [p.strip(" \t\n.?？!,;") for p in pieces]
    parts = [p for p in parts if len(p) >= _MIN_CHARS and (_ASKS.search(p) or asked_type(p))]
    return parts if len(parts) >= 2 else (_each_parts(question) or [question])


# language: where a statement ends and the next sentence begins (". " / "! " before a capital, Hangul, a Chinese
# character or a quote; "。" / "！" always); a period after a single letter or a common abbreviation ends nothing
# ("9 p.m. on Sundays", "U.S. guests", "Prof. Han", "No. 2 line")
_STATEMENT_END = re.compile(r"(?<=[.!])\s+(?=[A-Z\uac00-\ud7a3\u3400-\u9fff\"'“‘(\[])|(?<=[。！])\s*(?=\S)")
_ABBREVIATION = re.compile(r"(?:\b[A-Za-z]|\b(?:prof|dr|mr|mrs|ms|no|nos|st|vs|etc|approx|dept|co|inc|ltd|jr|sr|fig|vol|"
                           r"ca|cf|e\.g|i\.e))\.$", re.I)
# a question word, not a question mark: a yes / no question has no asking sentence of its own (its subject may be
# anywhere in it)
_QUESTION_WORD = re.compile(_QUESTION_WORDS)


def sentences(text: str) -> list[str]:
    """The sentences of a question: statements before it ("I just started this week.") and the question itself."""
    out: list[str] = []
    start = 0
    for m in _STATEMENT_END.finditer(text):
        piece = text[start:m.start()]
        if piece.rstrip().endswith(".") and _ABBREVIATION.search(piece.rstrip()):
            continue
        out.append(piece)
        start = m.end()
    out.append(text[start:])
    return [p for p in out if p.strip()]


def asking_text(question: str) -> str:
    """The question from its first sentence that asks with a question word: without the statements before it that
    say who asks and why ("I start next Monday as a junior designer. How much …" → "How much …"). A clause before
    the question in the same sentence stays: it often names the matter ("For the Xi'an hotel, how many rooms …",
    "합작 계약 요약을 보고 있는데요, 수수료율은 …"). The question itself when its first sentence asks, or none does."""
    pieces = sentences(question)
    for k, piece in enumerate(pieces):
        if _QUESTION_WORD.search(piece.lower()):
            return question if k == 0 else " ".join(p.strip() for p in pieces[k:])
    return question


# language: a clause before the question in its own sentence that says who asks and why — Korean's background
# connective -는데(요) / -ㄴ데(요) before a comma ("이번 주에 막 합류했는데요, 몇 시까지 …"), or a clause with the asker
# as its subject ("I'm a new store manager in Cheongju: by what time …", "我表弟今年17岁，最近迷上了…，想问下…")
_CLAUSE_END = re.compile(r"\s*(?:[,，:：;；]|\s[—–-]{1,2})\s*(?:(?:so|and)\s+)?")
_BACKGROUND = re.compile(r"[가-힣]데요?$")
# … and without a comma only after 이다 or a past / existence stem ("소속인데", "있는데", "했는데"): "신청하는데 필요한
# 서류" (데 = "in doing"), "걸리는데 B안은" (a comparison), "여러 군데" keep the whole sentence
_BACKGROUND_SPACED = re.compile(r"(?:(?<=인데)|(?<=[었았였했됐있없]는데))\s+")
_ASKER = re.compile(r"^\s*(?:(?:i|i'm|i am|i've|i'd|i'll|we|we're|we've|my|our)\b|我|本人)", re.I)


def asking_clause(question: str) -> str:
    """``asking_text`` without a lead-in clause of the same sentence that says who asks and why: what routing and
    ``semantics.compared_sides`` read, so the lead-in's own time ("이번 주에 합류했는데요, …", "最近迷上了…") or the team and system it names
    ("품질안전팀에 새로 와서 Coldtrack 운영을 맡게 됐는데요, …") do not decide where the question goes. A clause that
    names the matter and is no lead-in ("For the Xi'an hotel, how many …") stays."""
    text = asking_text(question)
    asks = _QUESTION_WORD.search(text.lower())
    if asks is None:
        return text
    ends = list(_CLAUSE_END.finditer(text[:asks.start()]))
    if ends and _ASKER.match(text):
        return text[ends[-1].end():]
    for end in reversed(ends):
        if _BACKGROUND.search(text[:end.start()].rstrip()):
            return text[end.end():]
    # "다른 대학 소속인데 주사전자현미경 한 시간 쓰면 얼마 내야 돼요?": the same background clause with no comma
    spaced = list(_BACKGROUND_SPACED.finditer(text[:asks.start()]))
    return text[spaced[-1].end():] if spaced else text


def asking_query(text: str) -> str:
    """``asking_text`` when it keeps at least rules.ASKING_MIN_TERMS key terms, else the text whole: what retrieval
    searches for a question or one of its parts."""
    asking = asking_text(text)
    return asking if asking != text and len(key_terms(asking)) >= ASKING_MIN_TERMS else text
