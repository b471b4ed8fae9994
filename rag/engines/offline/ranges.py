"""The asker's own case and the rule whose range holds it (language rules, not tuned).

A question that states its own amount — "닷새 전에 취소하려고요", "roughly six weeks out", "提前 5 天" — asks which rule
applies; the rules state ranges ("투숙일 6일 전부터 3일 전 사이", "59 to 30 days before arrival", "3 至 7 天",
"10 rooms or more", "7 days or fewer"). Key terms cannot tell those rules apart (each says "days before … cancel"), the
number the question states is in none of them, and meaning ranks them alike: the range that holds the question's amount
does. Amounts are compared within one unit class; days, weeks, months and years as days.
"""
from __future__ import annotations

import re

from rag.engines.offline.text import _EN_NUMBER_WORDS, _norm, _zh_value
from rag.engines.offline.values import KO_DAY_COUNTS, UNIT_WORDS, _unit_alternation, _unit_class, stated_values

# the unit classes compared, durations in days
_DAYS = {"day": 1, "week": 7, "month": 30, "yearspan": 365}
_CLASSES = ("day", "week", "month", "yearspan", "person", "hour", "minute", "age")
_UNIT = _unit_alternation(tuple(w for c in _CLASSES for w in UNIT_WORDS[c]))
_N = r"\d+(?:[.,]\d+)*|[一二两三四五六七八九十百]+"
# English number words: text.stated_numbers reads two … twelve (text._EN_NUMBER_WORDS); a group's size may be larger
_EN = {w: int(n) for w, n in _EN_NUMBER_WORDS.items()}
_EN.update({w: i for i, w in enumerate("thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty".split(),
                                        start=13)})
_EN.update({"one": 1, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60})
_EN_WORD = "|".join(sorted(_EN, key=len, reverse=True))
_GROUP = re.compile(rf"\b({_EN_WORD}|\d+)\s+of\s+us\b", re.I)  # "there are fourteen of us": people
# A–B <unit> ("6일 전부터 3일 전 사이", "59 to 30 days", "3 至 5 天", "2~4주"): the unit may follow each number
_BETWEEN = re.compile(rf"(?<![\d.,:])(?P<a>{_N})\s?(?:{_UNIT})?\s?(?:전|前|before|후|后|after)?\s?"
                      rf"(?:~|～|–|—|-|to|through|至|到|부터|에서)\s?(?P<b>{_N})\s?(?P<u>{_UNIT})(?![A-Za-z])", re.I)
# A <unit> or more / at least A <unit> / "A일 전까지" (until A days before: A or more days before); A <unit> or fewer /
# up to A <unit> / "A일 안에" (within A days)
_AT_LEAST = re.compile(rf"(?<![\d.,:])(?P<a>{_N})\s?(?P<u>{_UNIT})\s?(?:이상|以上|或以上|or more|or longer|or over|and over|"
                       r"전까지|前为止|以前)|"
                       rf"(?:at least|more than|over|최소)\s(?P<a2>{_N})\s?(?P<u2>{_UNIT})(?![A-Za-z])", re.I)
_AT_MOST = re.compile(rf"(?<![\d.,:])(?P<a>{_N})\s?(?P<u>{_UNIT})\s?(?:이하|이내|안에|안으로|미만|以下|以内|或以下|or fewer|"
                      r"or less|or under)|"
                      rf"(?:\bup to|\bwithin|\bno more than|\bat most|\bunder|\bbelow|최대|未满|不满|不足)\s?(?P<a2>{_N})\s?"
                      rf"(?P<u2>{_UNIT})"
                      r"(?![A-Za-z])", re.I)
# "8 周岁以上未满 16 周岁", "14세 이상 19세 미만", "16 years or over and under 18 years": an open range from below followed
# at once (nothing between them but a comma or "and") by one from above is one range between them; each alone would
# hold every amount on its side. Not across a line or a table cell, nor "7일 전까지" (a deadline, not a lower bound)
_JOIN_GAP = re.compile(r"[ \t]*(?:,|，|、|and|但|且|이고|이면서)?[ \t]*", re.I)
_DEADLINE = re.compile(r"전까지|前为止|以前")


def _number(text: str) -> float | None:
    text = text.strip().lower()
    if text in KO_DAY_COUNTS:  # native Korean counts of days ("닷새")
        return float(KO_DAY_COUNTS[text])
    if text in _EN:
        return float(_EN[text])
    if re.fullmatch(r"\d+(?:,\d{3})*(?:\.\d+)?", text):
        return float(text.replace(",", ""))
    if re.fullmatch(r"[一二两三四五六七八九十百]+", text):
        return float(_zh_value(text))
    return None


def _in_days(cls: str, value: float) -> tuple[str, float]:
    return ("day", value * _DAYS[cls]) if cls in _DAYS else (cls, value)


def asked_amounts(question: str) -> list[tuple[str, float]]:
    """The amounts a question states of its own case: (unit class, value), durations in days."""
    out: list[tuple[str, float]] = []
    q = _norm(question)
    for v in stated_values(q):
        if v.kind != "quantity" or v.unit not in _CLASSES:
            continue
        word = re.sub(rf"\s?(?:{_UNIT})$", "", v.text, flags=re.I) if v.text not in KO_DAY_COUNTS else v.text
        n = _number(word)
        if n is not None:
            out.append(_in_days(v.unit, n))
    out += [("person", n) for m in _GROUP.finditer(q) if (n := _number(m.group(1))) is not None]
    return out


def stated_ranges(sentence: str) -> list[tuple[str, float, float]]:
    """The ranges a sentence states: (unit class, low, high), durations in days; an open end is infinite."""
    s = _norm(sentence)
    out: list[tuple[str, float, float]] = []
    for m in _BETWEEN.finditer(s):
        a, b, cls = _number(m.group("a")), _number(m.group("b")), _unit_class(m.group("u"))
        if a is not None and b is not None and cls in _CLASSES:
            (_, lo), (_, hi) = _in_days(cls, min(a, b)), _in_days(cls, max(a, b))
            out.append(("day" if cls in _DAYS else cls, lo, hi))
    opened: list[tuple[int, int, str, float, bool, bool]] = []  # (start, end, class, bound, from below, joinable)
    for pattern, low in ((_AT_LEAST, True), (_AT_MOST, False)):
        for m in pattern.finditer(s):
            a, cls = _number(m.group("a") or m.group("a2")), _unit_class(m.group("u") or m.group("u2"))
            if a is not None and cls in _CLASSES:
                cls, a = _in_days(cls, a)
                opened.append((m.start(), m.end(), cls, a, low, not _DEADLINE.search(m.group(0))))
    opened.sort()
    joined: set[int] = set()
    for i, (start, end, cls, a, low, joinable) in enumerate(opened):
        nxt = opened[i + 1] if i + 1 < len(opened) else None
        if (low and joinable and nxt is not None and not nxt[4] and nxt[2] == cls and nxt[0] >= end and nxt[3] > a
                and _JOIN_GAP.fullmatch(s[end:nxt[0]])):
            out.append((cls, a, nxt[3]))
            joined.update((i, i + 1))
    for i, (_, _, cls, a, low, _) in enumerate(opened):
        if i not in joined:
            out.append((cls, a, float("inf")) if low else (cls, 0.0, a))
    return out


def holds_asked_amount(amounts: list[tuple[str, float]], sentence: str) -> bool:
    """Does the sentence state a range that holds one of the question's amounts (``asked_amounts``)?"""
    if not amounts:
        return False
    return any(cls == c and lo <= n <= hi for c, n in amounts for cls, lo, hi in stated_ranges(sentence))


def credit_held_amounts(question: str, text: str, cov) -> None:
    """Credit (in ``cov``, a ``coverage.Coverage``) each number of the question that is an amount of the asker's own
    case (``asked_amounts``: "12岁的玩家") held by a range the text states ("8 周岁以上未满 16 周岁"): the rule for the
    case is stated, its number is not."""
    missing = [t for t in cov.terms if cov.credit.get(t, 0.0) <= 0 and re.fullmatch(r"\d+(?:,\d{3})*(?:\.\d+)?", t)]
    amounts = asked_amounts(question) if missing else []
    ranges = stated_ranges(text) if amounts else []
    for t in missing:
        n = float(t.replace(",", ""))
        held = [(cls, lo, hi) for c, v in amounts if v == n for cls, lo, hi in ranges if cls == c and lo <= v <= hi]
        if held:
            cls, lo, hi = held[0]
            cov.credit[t], cov.how[t] = 1.0, f"within a stated range ({cls} {lo:g}–{hi:g})"
