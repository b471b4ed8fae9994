"""The attribute a value question asks for ("위약금" in "…1인당 위약금을 얼마 냈나요?", "weight" in "What is the maximum
weight of a checked bag …", "预算" in "…的总预算是多少？", the event "发货" in "…什么时候发货？"): grading holds a
document that never names it at ambiguous.
Language patterns, not tuned; the words that are no attribute (a unit, a kind of answer) are ``rules.ATTRIBUTE_SKIP``.
"""
from __future__ import annotations

import re
import unicodedata

from rag.engines.offline.answertype import asked_for_grading
from rag.engines.offline.coverage import _stem
from rag.engines.offline.rules import (ATTRIBUTE_SKIP, INTENT_CUES, PROCEDURE_QUESTION, TEMPORAL_MARKERS,
                                       WANTS_NUMBER, _FILLER_WORDS)
from rag.engines.offline.text import _HAN, _HANGUL, _is_number
from rag.textutil import key_terms


# the noun a value question word attaches to (language patterns, not tuned): Korean "X(은/는/이/가/을/를) [약] 얼마 / 몇",
# English "how many X", "what is the … X of / for / on …", "how much is the X", Chinese "X是多少" / "多少个X"
_KO_ASKED = re.compile(r"([가-힣A-Za-z0-9]+)\s+(?:[가-힣]{1,2}\s+)?(?=얼마(?!나)|몇)")
_EN_HOW_MANY = re.compile(r"\bhow many ([a-z][a-z\-]+)")
_EN_WHAT_THE = re.compile(r"\b(?:what|how much) (?:is|was|are|were) the ((?:[a-z\-]+ ){0,3}?[a-z\-]+?)"
                          r"(?= of\b| for\b| on\b| in\b| at\b| to\b| from\b| per\b| charged\b| paid\b|\s*[?？]|\s*$)")
_ZH_AFTER = re.compile(r"(?:多少|几)[个名张本台位件次辆艘座册种]([\u4e00-\u9fff]{2})(?=[？?。]|$)")
_ZH_BEFORE = re.compile(r"([\u4e00-\u9fff]{2,}?)(?:大约|大概|约|一共|总共|共|平均|最多|最少|至少|通常|一般)?(?:是|为)"
                        r"(?:多少|几)(?!钱|元|块)")
# "…是哪年几月建成的？", "…什么时候发货？": the event a Chinese date question asks about is the verb after its question word
_ZH_WHEN = re.compile(r"(?:哪一?天|哪一?年|几月|几号|什么时候|何时)(?:几月|几号)?"
                      r"((?:(?![的了过])[\u4e00-\u9fff]){2})(?=的?[？?。，,]|的?$)")
# "how long is Rongguang's exclusive streaming window on …", "how big is the deposit for …": the noun a measure
# question asks the size of
_EN_HOW_IS = re.compile(r"\bhow (?:long|big|large|high|old|wide|heavy|far) (?:is|are|was|were) "
                        r"(?:the |(?:[a-z\-]+ )?[a-z\-]+'s? )((?:[a-z\-]+ ){0,3}?[a-z\-]+?)"
                        r"(?= of\b| for\b| on\b| in\b| at\b| to\b| from\b|\s*[?？,]|\s*$)")
_EN_PREPOSITIONS = frozenset("through with about up out in on for to from at by of into over".split())
# "what is the maximum size of …": a measure word makes a "what is the X" question a value question
_EN_MEASURE = re.compile(r"\b(?:maximum|minimum|max|min|total|average|largest|smallest|highest|lowest)\b")


def _asks_intent(low: str) -> bool:
    return any(re.search(cue, low) for cue in INTENT_CUES.values()) or bool(PROCEDURE_QUESTION.search(low))


# a Korean noun in the locative / directional / time case (에, 에서, 엔, 에는, 까지, 부터, 으로, 한테) names where or when,
# never the attribute a value question asks for (language, not tuned)
_KO_PLACE_OR_TIME_CASE = re.compile(r"[가-힣](?:에서는|에서|에는|에도|엔|에게|한테|까지|부터|으로|에)[,.]?$")


def _attribute_word(word: str) -> str:
    terms = [t for t in (_stem(t) for t in key_terms(word)) if t]
    return terms[-1] if terms else ""


def asked_attribute(question: str) -> str:
    """The attribute a value question asks for, in key-term form ("2025년 3월 … 1인당 위약금을 얼마 냈나요?" →
    "위약금"; "What is the maximum weight of a checked bag …" → "weight"; "…的总预算是多少？" → "预算"), or "" when the
    question has none (a unit or a kind of answer such as "몇 명", "how many days", "which company" is no
    attribute; rules.ATTRIBUTE_SKIP)."""
    q = unicodedata.normalize("NFKC", question)
    low = q.lower()
    if _asks_intent(low):
        return ""  # a cause / procedure / comparison question is answered by a section, not by one value
    candidates: list[str] = []
    if _HANGUL.search(q):
        for m in _KO_ASKED.finditer(q):
            words = q[: m.end(1)].split()
            # "관람객 수는 몇 명": a counter word ("수") names the unit, the noun before it the attribute
            for w in reversed(words[-2:]):
                if _KO_PLACE_OR_TIME_CASE.search(w):
                    break  # "병원엔 몇 시까지": a place or time adverbial before the question word; no attribute
                t = _attribute_word(w)
                if t in TEMPORAL_MARKERS:
                    continue  # "직원 지금 몇 명": a time adverb, the noun before it is the attribute
                if t and t not in ATTRIBUTE_SKIP and len(t) >= 2:
                    candidates.append(t)
                    break
    m = _EN_HOW_MANY.search(low)
    if m:
        candidates.append(m.group(1))
    m = _EN_HOW_IS.search(low)
    if m:  # "how long is the notice period": the word before a word of measure ("period") names what is measured;
        # "the induction everyone sits through": a clause after the noun ends in its preposition, the noun leads
        words = m.group(1).split()
        words = words[:1] if words[-1] in _EN_PREPOSITIONS else words
        candidates.append(next((w for w in reversed(words) if w not in ATTRIBUTE_SKIP), ""))
    m = _EN_WHAT_THE.search(low)
    if m and (asked_for_grading(question).kinds or WANTS_NUMBER.search(low) or _EN_MEASURE.search(m.group(1))):
        candidates.append(m.group(1).split()[-1])
    if _HAN.search(q):
        m = _ZH_AFTER.search(q)
        if m and m.group(1) not in ATTRIBUTE_SKIP:
            candidates.append(m.group(1))
        for m in _ZH_BEFORE.finditer(q):
            run = re.split(r"[的之]", m.group(1))[-1]
            if len(run) >= 2 and run[-2:] not in ATTRIBUTE_SKIP and not run[-2:].startswith("每"):
                candidates.append(run[-2:])
        m = _ZH_WHEN.search(q)
        if m:
            candidates.append(_attribute_word(m.group(1)))
    for t in candidates:
        if t and t not in ATTRIBUTE_SKIP and t not in _FILLER_WORDS and not _is_number(t):
            return t
    return ""
