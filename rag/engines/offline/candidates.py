"""A sentence an extractive answer may quote (``Candidate``: its rank, coverage, meaning, heading, the value it states),
which of the picked ones the conclusion quotes, the order a comparison of names quotes them in, and the trace reason
that says why each was quoted, and which document's section answers a cause / procedure / comparison question
(``event_document``). ``selection.EvidenceSelector`` ranks and picks them."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from rag.engines.offline.answertype import NONE, STRONG, AskedType, asked_type, stated_values
from rag.engines.offline.coverage import Coverage, _name_like, coverage_of
from rag.engines.offline.layout import _is_table_row, is_table_header
from rag.engines.offline.parts import asked_parts
from rag.engines.offline.rules import (PROCEDURE_LIST_SHARE, PROCEDURE_MAX_STEPS, SECOND_SOURCE_SHARE,
                                       SENTENCE_MIN_RANK, TITLE_PENALTY)
from rag.engines.offline.semantics import question_intents
from rag.engines.offline.text import _is_number
from rag.types import Retrieved


@dataclass
class Candidate:
    rank: float
    pos: int  # position of the document in the pool
    index: int  # position of the sentence in the document
    text: str
    cov: Coverage  # key terms of the question in this sentence
    semantic: float  # 0..1 semantic match of this sentence
    heading: str  # the section the sentence sits under
    scoped: bool  # under a heading of the kind the question asks (cause / procedure / comparison)
    listed: int = 0  # a list item (a numbered or bulleted line) of its document: its list (1, 2 …); 0 when not one
    fits: int = NONE  # how well it states the value the question asks for (answertype.STRONG / WEAK / OTHER / NONE)
    causal: bool = False  # states a cause (because / 때문 / 因此 …) and the question asks for one
    why: str = "best match"  # why it was quoted (the answer's trace reason)
    numbered: bool = False  # an item of a numbered list ("1.", "2)"): ordered steps, not a bulleted set of rules
    title: bool = False  # a title / heading line of a plain-text document: it names a topic, it states nothing


def _score_over(cov: Coverage, terms: Sequence[str]) -> float:
    """Coverage score over a subset of the question's terms (same weights as ``Coverage.score``)."""
    total = sum(cov.weight(t) for t in terms)
    return sum(cov.weight(t) * cov.credit.get(t, 0.0) for t in terms) / total if total else 0.0


def _leading_asked(question: str) -> AskedType:
    """The value the conclusion should state: for a question that asks several things ("苏州第一家店是哪天开的？晚上几点
    关门？"), the one its first part asks for, when it asks for a value (the later parts get a sentence each,
    ``_select``); the whole question's pattern would pick whichever kind its list tries first (here the time of day).
    A first part that asks no value ("왜 늦었어? 몇 시에 도착해?") leaves the whole question's reading."""
    parts = asked_parts(question)
    if len(parts) >= 2:
        first = asked_type(parts[0])
        if first.kinds:
            return first
    return asked_type(question)


def conclusion_of(picked: Sequence[Candidate]) -> Candidate:
    """The sentence the conclusion quotes: the first picked, or for a table header the best-ranked of its rows."""
    lead = next((c for c in picked if not c.title), picked[0])  # a title line names the topic, it concludes nothing
    if is_table_header(lead.text):
        rows = [c for c in picked if c.pos == lead.pos and _is_table_row(c.text) and not is_table_header(c.text)]
        if rows:
            return max(rows, key=lambda c: c.rank)
    return lead


# "Nuri（努里）是 …"
_DEFINES_AFTER = r"\s*(?:[（(][^）)]{1,40}[）)]\s*)?(?:[:：]|(?:은|는|이란|이|가)(?=\s)|\s(?:is|are|was)\b|是|为)"


def defines(name: str, text: str) -> bool:
    """The sentence begins by saying what ``name`` is (``_DEFINES_AFTER``)."""
    body = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s+", "", text).strip()
    return re.match(rf"(?:the\s+)?{re.escape(name)}{_DEFINES_AFTER}", body, re.IGNORECASE) is not None


def names_only(question: str, terms: Sequence[str]) -> list[str]:
    """The question's key terms when every one of them is a name ("What is the difference between Atlas and Nuri?":
    atlas, nuri), else []: such a comparison asks what each name is (``compared_order``)."""
    names = [t for t in terms if _name_like(t, question)]
    return names if names and len(names) == len(terms) else []


def compared_order(name: str, names: Sequence[str], about: list[Candidate]) -> list[Candidate]:
    """The sentences about one compared name, in the order a comparison that asks about nothing but the names quotes
    them: the ones that say what the name is (``defines``) first, and within each group the ones about that name
    alone (no other compared name) first; otherwise in their given (rank) order."""
    def key(c: Candidate) -> tuple[int, int]:
        alone = not any(o in c.cov.covered for o in names if o != name)
        return (0 if defines(name, c.text) else 1, 0 if alone else 1)

    return sorted(about, key=key)  # stable: the rank order within each group


def _values_of(c: Candidate, asked: AskedType) -> list[str]:
    """The values of the asked kind a sentence states, as written ("2021", "430 名")."""
    return [v.text for v in stated_values(c.text) if v.kind in asked.kinds]


def _why(candidates: list[Candidate], reason: str) -> list[Candidate]:
    for c in candidates:
        c.why = reason
    return candidates


def why_quoted(question: str, picked: Sequence[Candidate]) -> str:
    """The trace reason's account of the quoted sentences: the value kind the question asks for, and why each
    sentence was quoted."""
    asked = _leading_asked(question)
    head = f"asks for: {asked.label}" if asked else "asks for: no particular kind of value"
    return head + "; quoted: " + "; ".join(f"{n}) {c.why}" for n, c in enumerate(picked, 1))


# language: a sentence that starts with a pronoun standing for what the sentence before it names ("It is refunded
# when …", "这笔费用…", "이 금액은 …") does not say what it is about: the sentence before it does
ANAPHORA_START = re.compile(
    r"^(?:it|its|this|that|these|those|they|their|such)\b|"
    r"^(?:이는|이것은|이것이|그것은|그것이|이 금액|이 돈|이 비용|이 기간|이 경우|이들은|그들은)|"
    r"^(?:它|其(?![他余餘它])|这笔|这项|这些|这个|该|此项|上述)", re.I)


def referent_before(c: Candidate, ranked: list[Candidate]) -> Candidate | None:
    """The sentence just before ``c`` in its section when ``c`` starts with a pronoun for it (``ANAPHORA_START``);
    quoted after ``c`` (the best match stays the conclusion)."""
    if not ANAPHORA_START.match(c.text.strip()):
        return None
    prev = next((p for p in ranked if p.pos == c.pos and p.index == c.index - 1), None)
    if prev is None or prev.heading != c.heading or prev.title or ANAPHORA_START.match(prev.text.strip()):
        return None  # another section's, a title, or a pronoun too (it names nothing either)
    return prev


REFERENT_WHY = "names what the quoted sentence before it refers to ('it', '이는', '该')"


def value_after(best: Candidate, ranked: list[Candidate]) -> Candidate | None:
    """The sentence one or two on from ``best`` in the same section that states a value of the asked kind (``fits``
    STRONG): a step that names what to do, then the sentence that says how long or how much."""
    at = {(c.pos, c.index): c for c in ranked}
    for k in (1, 2):
        nxt = at.get((best.pos, best.index + k))
        if nxt is not None and nxt.heading == best.heading and nxt.fits == STRONG:
            return nxt
    return None


def procedure_steps(ranked: list[Candidate]) -> list[Candidate]:
    """A procedure question: the list (2+ items under one heading of one document) whose best item ranks
    highest, quoted whole in document order — the steps, not the one step that matches best."""
    groups: dict[tuple[int, str, int], list[Candidate]] = {}
    for c in ranked:
        if c.listed:
            groups.setdefault((c.pos, c.heading, c.listed), []).append(c)
    lists = [g for g in groups.values() if len(g) >= 2]
    if not lists:
        return []
    at = {(c.pos, c.index): c for c in ranked}
    sizes = Counter((c.pos, c.listed) for c in ranked if c.listed)

    def score(g: list[Candidate]) -> float:
        """The list's best item, or the line that leads into it ("장비 대여 신청 절차", "Steps:"), whichever
        ranks higher: a plain-text document's section title is the line just above its list."""
        start = min(c.index for c in g)
        leads = [at[(g[0].pos, k)] for k in (start - 2, start - 1) if (g[0].pos, k) in at]
        # not an item of another list ("4. 장비 대여 신청 절차", a one-item "list", is a section title)
        lead = [c.rank + TITLE_PENALTY * c.title for c in leads
                if c.heading == g[0].heading and sizes[(c.pos, c.listed)] < 2]
        return max([g[0].rank] + lead)  # ranked is sorted: g[0] is the group's best item

    floor = PROCEDURE_LIST_SHARE * ranked[0].rank
    # steps are an ordered list: a numbered list that qualifies beats a bulleted one (a bulleted list is a set of
    # rules or facts, "- 회원 1인당 최대 3대" / "- Members may rent 3 bikes", not what to do in order)
    ordered = [g for g in lists if all(c.numbered for c in g) and score(g) >= floor]
    best = max(ordered or lists, key=score)
    if score(best) < floor:
        return []
    return sorted(best, key=lambda c: c.index)[:PROCEDURE_MAX_STEPS]


def event_document(question: str, terms: Sequence[str], docs: Sequence[Retrieved], ranked: list[Candidate],
                   top: int) -> int:
    """The document whose section of the asked kind answers a cause / procedure / comparison question: the best
    sentence's document, unless another document with such a section names more of what the question names —
    its names and numbers ("Daegu", "March", "2025") — in the chunks of it the context holds (the title may be
    in another chunk than the section) or in the headings above its sentences. The best-matching sentence can
    sit in another event's "원인" section: "the cold showers in Daegu in March" is not the overbooking at Bomun.

    A cause question whose best sentence's document has no such section at all (a team directory's "The
    delivery vans are his" for "진짜 원인은 뭐였어요?") is answered from the section of a document that has one,
    when that document's best sentence ranks close to the best (``SECOND_SOURCE_SHARE`` of it, and at least
    ``SENTENCE_MIN_RANK``, as a second source must) and it names as many of the question's names and numbers as
    the best sentence's document: the one naming most, then the better ranked. Procedure and comparison cues
    are broader ("fix", "steps", "각각"), so for them the best sentence's document stands unless named more."""
    marks = [t for t in terms if _is_number(t) or _name_like(t, question)]
    scoped = {c.pos for c in ranked if c.scoped}
    memo: dict[int, int] = {}

    def named(pos: int) -> int:
        # the document as far as the context holds it: every chunk of the same document (the title may be in
        # another chunk than the section) and the headings above the sentences
        if not marks:
            return 0
        if pos not in memo:
            doc_id = docs[pos].doc_id or docs[pos].id
            same = [k for k, d in enumerate(docs) if (d.doc_id or d.id) == doc_id]
            headings = {c.heading for c in ranked if c.pos in same and c.heading}
            cov = coverage_of(marks, "\n".join([*(docs[k].text for k in same), *headings]))
            memo[pos] = sum(1 for t in marks if cov.credit.get(t, 0.0) > 0)
        return memo[pos]

    if scoped and top not in scoped and "cause" in question_intents(question):
        best_rank: dict[int, float] = {}
        for c in ranked:  # best first: a document's first sentence here is its best
            best_rank.setdefault(c.pos, c.rank)
        floor = max(SENTENCE_MIN_RANK, SECOND_SOURCE_SHARE * best_rank.get(top, 0.0))
        near = [pos for pos in sorted(scoped) if best_rank[pos] >= floor]
        if near:
            count = {pos: named(pos) for pos in [*near, top]}
            best = max(near, key=lambda pos: (count[pos], best_rank[pos]))
            if count[best] >= count[top]:
                return best
    # else (and for procedure and comparison questions) the rule before: a section that names more
    if not marks or not scoped or scoped == {top}:
        return top
    best = max(sorted(scoped), key=named)
    return best if named(best) > named(top) else top
