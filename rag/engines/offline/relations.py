"""Which relations a question asks about, and the path of graph facts that reaches them."""
from __future__ import annotations

import re
from typing import Sequence

from rag.engines.offline.rules import RELATION_SLOTS
from rag.engines.offline.text import _contains_phrase, _norm, _specific
from rag.types import Retrieved

def asked_relations(question: str) -> set[str]:
    q = question.lower()
    return {pred for pred, cue in RELATION_SLOTS if re.search(cue, q)}


def _slot_term(term: str, predicate: str) -> bool:
    """True when the question term is a cue for the fact's predicate ("도시" for located_in)."""
    for pred, cue in RELATION_SLOTS:
        if pred == predicate and re.search(cue, term):
            return True
    return False


# relations that say the same thing of a different kind of member: a person belongs_to a team, a team is part_of a
# division; "Minji Park이 속한 팀" asks either word
_SAME_RELATION = {"belongs_to": "part_of", "part_of": "belongs_to"}


def _as_asked(predicate: str, asked: set[str]) -> str:
    """The asked relation a fact's relation fills: its own, or its twin (``_SAME_RELATION``) when only that is asked."""
    twin = _SAME_RELATION.get(predicate)
    return twin if predicate not in asked and twin in asked else predicate


def graph_path(question: str, docs: Sequence[Retrieved],
               supports: Sequence[float]) -> tuple[dict[str, float], float, list[int]]:
    """Which asked relations are filled by facts connected to an entity of the question.

    Start from the entities named in the question (when it names none, from those of the top vector hit the graph
    search started from); follow supporting facts (grade correct / ambiguous) whose
    relation is asked, then generic ``related_to`` facts, then any fact; a reached fact with an asked relation fills
    it (credit 1); a fact with another relation on the path (a bridge) fills one still-missing relation at half
    credit.
    Returns ({relation: credit}, mean credit over the asked relations, positions of the path's facts in order).
    """
    asked = asked_relations(question)
    q = _norm(question)
    facts: list[tuple[int, str, str, str]] = []
    start: set[str] = set()
    for pos, (doc, s) in enumerate(zip(docs, supports)):
        triple = (doc.metadata or {}).get("triple") or []
        if doc.tool != "graph" or len(triple) != 3 or s <= 0:
            continue
        facts.append((pos, _norm(triple[0]), _as_asked(triple[1], asked), _norm(triple[2])))
        start |= {_norm(e) for e in (doc.metadata or {}).get("question_entities") or [] if _specific(e)}
        start |= {_norm(e) for e in (triple[0], triple[2]) if _specific(e) and _contains_phrase(q, e)}
    if not start:
        # the question names no entity ("the monitoring system that stayed silent in September … which group built
        # it?"): the graph search started from the names in the top vector hit, and so does the path
        start = {_norm(e) for doc, s in zip(docs, supports) if doc.tool == "graph" and s > 0
                 for e in (doc.metadata or {}).get("hit_entities") or [] if _specific(e)}
    reached = set(start)
    filled: dict[str, float] = {}
    generic = 0
    path: list[int] = []
    origins: dict[str, set[str]] = {}  # asked relation -> the reached entities its facts started from
    # asked relations first; generic related_to facts may extend the path only if that leaves a gap, and then any
    # other relation may bridge to the entity the question asks about ("만든 팀" reached through owns)
    any_predicate = {pred for _, _, pred, _ in facts}
    for allowed in (asked, asked | {"related_to"}, asked | any_predicate):
        if allowed is not asked and all(p in filled for p in asked):
            break
        for _ in range(4):  # a few rounds: a 2-hop chain needs two
            grew = False
            for pos, src, pred, tgt in facts:
                if pos in path or pred not in allowed or not (src in reached or tgt in reached):
                    continue
                near = {src, tgt} & reached
                if (pred in asked and pred in filled and not near & origins.get(pred, set())
                        and not all(p in filled for p in asked)):
                    # while another asked relation is missing, an asked relation is one hop of the chain:
                    # "Coldtrack uses Daybreak" fills uses, and "Daybreak uses Proofline" does not follow it again
                    # to reach a builder (a sibling from the same entity may); a question that asks one relation
                    # ("the database the service X uses uses") follows it as far as it goes
                    continue
                origins.setdefault(pred, set()).update(near)
                path.append(pos)
                if pred in asked:
                    filled[pred] = 1.0
                else:
                    generic += 1
                if not {src, tgt} <= reached:
                    reached |= {src, tgt}
                    grew = True
            if not grew:
                break
    for pred in sorted(asked):
        if generic and pred not in filled:
            filled[pred] = 0.5
            generic -= 1
    chain = sum(filled.get(p, 0.0) for p in asked) / len(asked) if asked else 1.0
    linked = _longest_chain(facts, start, asked)
    if len(linked) >= 2:  # the chain's facts first, in chain order: they are the hops the answer follows
        path = linked + [p for p in path if p not in linked]
    return filled, chain, path


def _longest_chain(facts: Sequence[tuple[int, str, str, str]], start: set[str], asked: set[str]) -> list[int]:
    """Positions of the facts of the longest chain from a question entity in which each fact fills another asked
    relation and starts where the previous one ended ("the team that built the database X uses": X —uses→ DB
    —developed_by→ team ←leads— person), not back at the start ("X —developed_by→ vendor" fills developed_by but
    is not the database's maker). Ties: the earlier-ranked facts."""
    best: list[int] = []

    def walk(entity: str, used: frozenset[str], chain: list[int]) -> None:
        nonlocal best
        if len(chain) > len(best):
            best = list(chain)
        for pos, src, pred, tgt in facts:
            if pred not in asked or pred in used or pos in chain or entity not in (src, tgt):
                continue
            walk(tgt if src == entity else src, used | {pred}, chain + [pos])

    for entity in sorted(start):
        walk(entity, frozenset(), [])
    return best
