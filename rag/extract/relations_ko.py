"""Korean relations: a ``PATTERNS`` trigger stem in the sentence; the particle after each name (은/는/이/가 subject,
을/를 object, 에/에서 place, 의 possessor) says which role it plays, and "A가 운영하는 B" is read as a relative clause."""
from __future__ import annotations

import re

from rag.extract.mention import Mention
from rag.extract.patterns import PATTERNS


_SUBJECT = {"은", "는", "이", "가", "도", "께서"}
_OBJECT = {"을", "를"}
_PLACE = {"에", "에서", "에서는", "에는", "으로", "로", "으로는", "로는"}
_AGENT = {"에의해", "에의하여"}
_COPULA = {"이다", "입니다", "이며", "이고", "이었다", "였다", "다"}


def _korean_relation(sentence: str, mentions: list[Mention]) -> tuple[Mention, str, Mention] | None:
    for pattern in PATTERNS:
        trigger = next((t for t in pattern.korean if t in sentence), None)
        if trigger is None:
            continue
        # "X의 본사" / "X의 일부": the possessor is the subject for located_in, the whole for part_of
        subjects = [m for m in mentions if m.particle in _SUBJECT]
        objects = [m for m in mentions if m.particle in _OBJECT]
        places = [m for m in mentions if m.particle in _PLACE]
        agents = [m for m in mentions if m.particle in _AGENT]
        possessors = [m for m in mentions if m.particle == "의"]
        first, second = mentions[0], mentions[1]

        def other(than: Mention) -> Mention:
            rest = [m for m in mentions if m is not than]
            preferred = [m for m in rest if m.particle in _SUBJECT or m.particle == "의"]
            return (preferred or rest)[0]

        role = pattern.ko_subject_role
        if role == "made":  # (thing, developed_by / founded_by, maker)
            if objects:  # "B는 A를 개발했다"
                thing = objects[0]
                return thing, pattern.predicate, other(thing)
            idx = sentence.find(trigger)
            # "B에서 개발한": a place is the maker only right before the trigger
            makers = agents + [m for m in places if m.particle == "에서" and 0 <= idx - m.end <= 4]
            makers += [m for m in subjects if m.particle in ("이", "가")]
            topics = [m for m in mentions if m.particle in ("은", "는", "도")]
            if makers and topics and makers[0] is not topics[0]:  # "A는 B가 개발했다", "B가 개발한 A는"
                return topics[0], pattern.predicate, makers[0]
            if makers:
                thing = next((m for m in mentions if m is not makers[0]), None)
                if thing is not None:
                    return thing, pattern.predicate, makers[0]
            copula = [m for m in mentions if m.particle in _COPULA]
            if copula and copula[0] is not first:  # "A의 개발사는 B이다"
                return first, pattern.predicate, copula[0]
            idx = sentence.find(trigger)
            if topics and idx > topics[0].end:  # "RRF는 Gordon Cormack 연구진이 제안했다"
                between = [m for m in mentions if m.start >= topics[0].end and m.end <= idx and m.particle == ""]
                if between:
                    return topics[0], pattern.predicate, between[0]
            return None
        if role == "leader":  # (person, leads, group)
            if objects:  # "A는 B를 이끈다"
                return other(objects[0]), pattern.predicate, objects[0]
            copula = [m for m in mentions if m.particle in _COPULA]
            if possessors and copula:  # "B의 팀장은 A이다"
                return copula[0], pattern.predicate, possessors[0]
            if possessors and subjects and subjects[0] is not possessors[0]:  # "A는 B의 팀장이다"
                return subjects[0], pattern.predicate, possessors[0]
            topics = [m for m in mentions if m.particle in ("은", "는")]
            doers = [m for m in mentions if m.particle in ("이", "가")]
            if topics and doers and topics[0] is not doers[0]:  # "B는 A가 이끈다"
                return doers[0], pattern.predicate, topics[0]
            return None
        relative = _relative_clause(sentence, mentions, trigger)
        if relative is not None and role in ("owner", "user", "leader"):  # "A가 운영하는 B": (A, predicate, B)
            return relative[0], pattern.predicate, relative[1]
        if role == "owner":  # (team, owns, product)
            if objects:  # "A는 B를 담당한다"
                return other(objects[0]), pattern.predicate, objects[0]
            topics = [m for m in mentions if m.particle in ("은", "는")]
            doers = [m for m in mentions if m.particle in ("이", "가", "에서")]
            if topics and doers and topics[0] is not doers[0] \
                    and not _EMBEDDED_CLAUSE.search(sentence[doers[0].end:sentence.find(trigger)]):
                return doers[0], pattern.predicate, topics[0]  # "B는 A가 담당한다", not "B는 A가 쓰는 C를 맡는다"
            return None
        if role == "acquirer":  # (buyer, acquired, bought)
            if objects:
                return other(objects[0]), pattern.predicate, objects[0]
            if agents or places:  # "A는 B에 인수되었다"
                buyer = (agents or places)[0]
                return next(m for m in mentions if m is not buyer), pattern.predicate, buyer
            return None
        if role == "located":  # (thing, located_in, place)
            place = next((m for m in places if m is not first), None)
            if place is None:
                copula = [m for m in mentions if m.particle in _COPULA]
                place = copula[0] if copula and copula[0] is not first else None
            if place is None:
                return None
            thing = next((m for m in possessors + subjects if m is not place), first if first is not place else second)
            return thing, pattern.predicate, place
        if role == "part":  # (part, part_of, whole)
            whole = possessors[0] if possessors else None
            if whole is None:
                return None
            part = next((m for m in mentions if m is not whole), None)
            return (part, pattern.predicate, whole) if part else None
        if role == "member":  # (member, belongs_to, group)
            group = next((m for m in places + possessors if m is not first), None)
            if group is None:
                idx = sentence.find(trigger)
                before = [m for m in mentions if m.end <= idx and m is not first]
                group = before[-1] if before else None
            return (first, pattern.predicate, group) if group else None
        if role == "user":  # (user, uses, used)
            if objects:
                return other(objects[0]), pattern.predicate, objects[0]
            if trigger == "기반" and possessors:  # "B 기반의 A", "A는 B를 기반으로"
                return first, pattern.predicate, second
            return None
    return None


# a verb in its adnominal form then a noun ("함께 쓰는 시스템을"): the subject before it belongs to that embedded clause
_EMBEDDED_CLAUSE = re.compile(r"[가-힣](?:는|한|던|된)\s+\S")
_KO_ADNOMINAL_AFTER_TRIGGER = re.compile(r"^[가-힣]{0,2}?(?:하는|한|던|는|된|되는|ㄴ)\s")


def _relative_clause(sentence: str, mentions: list[Mention], trigger: str) -> tuple[Mention, Mention] | None:
    """"A가 운영하는 B", "A이 사용하는 "B"": the subject-marked mention before the trigger and the mention right after the
    trigger's adnominal form (the noun the clause describes); None when the sentence is not built so."""
    idx = sentence.find(trigger)
    m = _KO_ADNOMINAL_AFTER_TRIGGER.match(sentence[idx + len(trigger):])
    if m is None:
        return None
    doer = next((x for x in reversed(mentions) if x.end <= idx and x.particle in ("이", "가", "에서")), None)
    head_at = idx + len(trigger) + m.end()
    head = next((x for x in mentions if x.start >= idx and re.fullmatch(r"[\s\"“「『']*",
                                                                         sentence[head_at:x.start])), None)
    if doer is None or head is None or doer is head:
        return None
    return doer, head
