"""Tiered routing (seed 003, "model tiering"): the offline router decides when it is confident, the model only when
it is not. Which tier decided, and why, goes into ``Decision.signals`` (``tier``, ``tier_reason``).

The offline router (``rag.engines.offline.routing``) checks rules in a fixed order. Every rule except the last is a
positive match (a translation request, an arithmetic expression, code syntax, a temporal marker or recent year,
a relation pattern, two or more known graph entities, a value asked about named entities): on the sample questions
these are right every time, and a model would only repeat them at a price. The last rule, ``default``, is "nothing
matched, so vector": that is where a model can see what the patterns miss (a relational question worded in a way no
pattern knows, common knowledge that needs no retrieval). One kind of default is still a plain lookup: a question
that asks for a value (how many / how much / what value / 몇 / 얼마 / 며칠) and names at most one graph entity asks
for a figure from the documents, which is what vector search is for.
"""
from __future__ import annotations

from rag.engines.offline.rules import VALUE_QUESTION
from rag.engines.offline.text import _norm
from rag.types import Decision

CONFIDENT_RULES = frozenset({"translation", "arithmetic", "code_syntax", "temporal", "relation", "entities",
                             "value_question"})


def offline_is_confident(question: str, decision: Decision) -> tuple[bool, str]:
    """(whether the offline router's decision stands without a model, the reason in plain words)."""
    rule = str((decision.signals or {}).get("rule") or "")
    if rule in CONFIDENT_RULES:
        return True, f"offline rule '{rule}' matched the question"
    if rule == "default":
        value = VALUE_QUESTION.search(_norm(question))
        entities = list((decision.signals or {}).get("entities") or [])
        if value and len(entities) <= 1:
            return True, (f"no pattern matched, but the question asks for a value ('{value.group(0)}') and names "
                          f"{len(entities)} graph entit{'y' if len(entities) == 1 else 'ies'}: a factual lookup")
        return False, "no offline rule matched (the default 'vector' is a guess), so the model decides"
    return False, f"offline rule {rule!r} is not one the tiers trust, so the model decides"


__all__ = ["CONFIDENT_RULES", "offline_is_confident"]
