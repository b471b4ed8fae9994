"""The naive generator answers every asked part, even one the context never states (the offline model of F3).

Why naive and only naive: the llm engine's naive prompt (``rag/engines/prompts.py`` ``NAIVE_SYSTEM``) says only
"Answer the question based on the context below": it does not say *only* from the context, nor to say what is
missing, nor not to guess — every judging variant's generator prompt (``ANSWER_SYSTEM``, ``PARTIAL_SYSTEM``) does.
A model so prompted, given a two-part question and a context that answers one part, tends to answer the other part
too, with the closest name or number at hand; seed 001: nobody checks whether the answer rests on the documents, so
F3 (hallucination) goes out as it is. Offline the naive generator does the same, by rule, and says so:

- the question has at least two *asked parts* (``parts.asked_parts``: question marks, "and" before a question
  word) that hold a question word (``_QUESTION_CUES``) and at least two key terms; a lead-in clause ("연봉 계약할 때
  참고하려고 하는데,") asks nothing;
- one asked part is *stated*: some sentence of the context holds at least ``SUPPORT_MIN`` of its key terms (the
  context is on topic, so the generator goes on to answer the rest);
- another asked part is stated by no sentence, and no sentence about the subject of the stated parts (one that
  holds a key term of theirs) mentions that part's own key terms in any form ("works" counts for "work") — the
  context is silent on what it asks; when such a sentence is in another language than the part, absence of its
  words is no evidence, and nothing is composed;
- the *filler* comes from the closest sentence that has one (sentences ranked by their coverage of that part's
  key terms, then of the question's, then document order): for a part asking a value (``WANTS_NUMBER``) the first
  number the question does not hold, otherwise the first entity name (``rag.extract.find_mentions``) that is
  neither in the question nor in the quoted evidence (that one already answers another part). No filler: nothing
  is composed — the engine never makes up a name or a number that is not in the context.

The composed sentence ('The answer to "which city does she work in" is Hanbit Labs.') is appended to the
conclusion with no citation (no document says it), never to the evidence list, and the answer's reason records it
as *composed, not quoted*, with the part it fills and the sentence the filler came from. The F3 rule of
``rag.failures`` then sees a sentence whose key terms the context lacks; self_rag's ``check_hallucination`` applies
the same coverage test to its own answers. Single-part questions, off-topic contexts (nothing stated: F4 / F7
ground) and every other generation mode are unchanged. adaptive's one-shot path also generates in the naive mode,
but ``classify_complexity`` sends a question with two asked parts to its checked loop, so it never composes there.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from rag.engines.offline.coverage import coverage_of, question_terms
from rag.engines.offline.critics import MIN_CLAIM_TERMS, SUPPORT_MIN
from rag.engines.offline.parts import asked_parts as split_parts
from rag.engines.offline.rules import _QUESTION_CUES, WANTS_NUMBER
from rag.engines.offline.text import _cite_label, _contains_phrase, _norm, _sentences, language_of
from rag.types import Retrieved

TEMPLATES = {"ko": "“{part}”에 대한 답은 {filler}입니다.", "en": "The answer to \"{part}\" is {filler}.",
             "zh": "“{part}”的答案是{filler}。"}
_DIGITS = re.compile(r"\d+(?:\.\d+)?")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?:\s?%|[년월일개명번회시분초원](?![가-힣]))?")


@dataclass
class Composed:
    """A sentence the naive generator wrote without a document stating it."""
    sentence: str
    part: str  # the asked part it answers
    filler: str  # the name or number it put in
    source: str  # where the filler came from (citation label of the document)
    from_sentence: str  # the context sentence the filler came from


def asked_parts(question: str) -> list[str]:
    """The parts of the question (``parts.asked_parts``) that ask something F3 can fill: a question word and at
    least two key terms each."""
    return [p for p in split_parts(question)
            if _QUESTION_CUES.search(p.lower()) and len(question_terms(p)[0]) >= MIN_CLAIM_TERMS]


def _stated(terms: Sequence[str], sentence: str) -> bool:
    cov = coverage_of(terms, sentence)
    return cov.score >= SUPPORT_MIN and not cov.missing_numbers


def _mentioned(term: str, context: str) -> bool:
    """The term appears anywhere in the context in any form the key-term match knows (exact, glossary, synonym,
    part of a Korean word), or as the start of a Latin word ("work" in "works", "worked")."""
    if coverage_of([term], context).credit[term] > 0:
        return True
    if re.fullmatch(r"[a-z]{3,}", term):
        stem = term[:-1] if len(term) > 4 else term
        return re.search(rf"(?<![a-z]){re.escape(stem)}[a-z]*", _norm(context)) is not None
    return False


def _mentions(sentence: str) -> list[str]:
    from rag.extract import find_mentions

    return [m.name for m in find_mentions(sentence)]


def compose_gaps(question: str, docs: Sequence[Retrieved], quoted: str, lang: str) -> list[Composed]:
    """The sentences an unchecked generator adds for asked parts the context does not state (see the module)."""
    parts = asked_parts(question)
    if len(parts) < 2 or not docs:
        return []
    sentences = [(d, s.strip()) for d in docs for s in _sentences(d.text) if s.strip()]
    part_terms = {p: question_terms(p)[0] for p in parts}
    stated = {p: any(_stated(part_terms[p], s) for _, s in sentences) for p in parts}
    if not any(stated.values()):
        return []  # off topic: the quoted answer stands as it is (F4 / F7 ground, not F3)
    q_norm, quoted_norm = _norm(question), _norm(quoted)
    q_terms, _ = question_terms(question)
    out: list[Composed] = []
    for part in parts:
        terms = part_terms[part]
        if stated[part]:
            continue
        subject = {t for p in parts if stated[p] for t in part_terms[p]}
        own = [t for t in terms if t not in subject]
        if not own:
            continue
        about = [x for _, x in sentences if any(coverage_of([t], x).credit[t] > 0 for t in subject)]
        if any(language_of(x) != language_of(part) for x in about):
            continue  # a sentence about it in another language: absence of the part's words is no evidence
        if any(_mentioned(t, x) for x in about for t in own):
            continue  # the context does talk about it ("who works in Seoul" for "which city does she work in")
        ranked = sorted(range(len(sentences)), key=lambda i: (-coverage_of(terms, sentences[i][1]).score,
                                                              -coverage_of(q_terms, sentences[i][1]).score, i))
        wants_value = bool(WANTS_NUMBER.search(_norm(part)))
        pick = None
        for i in ranked:
            doc, sentence = sentences[i]
            if wants_value:
                held = set(_DIGITS.findall(q_norm))
                found = [m.group(0) for m in _NUMBER.finditer(sentence)
                         if not set(_DIGITS.findall(_norm(m.group(0)))) <= held]
            else:
                found = [n for n in _mentions(sentence)
                         if not _contains_phrase(q_norm, n) and not _contains_phrase(quoted_norm, n)]
            if found:
                pick = (doc, sentence, found[0])
                break
        if pick is None:
            continue  # nothing at hand to fill it with: never invent
        doc, sentence, filler = pick
        out.append(Composed(TEMPLATES.get(lang, TEMPLATES["en"]).format(part=part, filler=filler), part, filler,
                            _cite_label(doc), sentence))
    return out


def describe(composed: Sequence[Composed]) -> str:
    """The reason-line fragment that records composed sentences in the trace."""
    return "; ".join(f"composed, not quoted: {c.sentence!r} — no sentence of the context states the asked part "
                     f"{c.part!r}, so the unchecked generator filled it with {c.filler!r} from {c.source} "
                     f"({c.from_sentence[:60]!r})" for c in composed)


__all__ = ["Composed", "asked_parts", "compose_gaps", "describe", "TEMPLATES"]
