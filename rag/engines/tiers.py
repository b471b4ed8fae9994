"""Tiered routing (seed 003, "model tiering"): the offline router decides when it is confident, the model only when
it is not. Which tier decided, and why, goes into ``Decision.signals`` (``tier``, ``tier_reason``).

The offline router (``rag.engines.offline.routing``) checks rules in a fixed order. Every rule except the last is a
positive match (a translation request, an arithmetic expression, code syntax, a temporal marker or recent year,
a relation pattern, two or more known graph entities, a value asked about named entities): on the sample questions
these are right every time, and a model would only repeat them at a price. The last rule, ``default``, is "nothing
matched, so vector": that is where a model can see what the patterns miss (a relational question worded in a way no
pattern knows, common knowledge that needs no retrieval). One kind of default is still a plain lookup: a question
that asks for a value (how many / how much / what value / 몇 / 얼마 / 며칠) and names at most one graph entity asks
for a figure from the documents, which is what vector search is for — unless it asks for a statistic (average,
total, most …) or a comparison: that may be a table question (sql), which the route rules do not plan, so the model
decides.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from rag.config import Settings
from rag.engines.offline.kinds import has_comparison_cue
from rag.engines.offline.rules import VALUE_QUESTION
from rag.engines.offline.text import _norm
from rag.tools.sql import detect_function
from rag.types import Decision

CONFIDENT_RULES = frozenset({"translation", "arithmetic", "code_syntax", "temporal", "relation", "entities",
                             "value_question"})


def offline_route(offline: Any, question: str, known_entities: list[str]) -> Decision:
    """The offline router's route rules (``Router._route``): keyword and entity rules, about a millisecond. Not the
    full ``classify``, which also runs the table planner for the question kind (issue 12: it embeds table, column and
    value names, 100–300 ms per question on a busy 2-core machine, more than the model call it would save). A table
    question no route rule claims goes to the model tier, which can choose ``sql`` and name the question's kind."""
    route = getattr(offline, "_route", None)
    return route(question, known_entities) if callable(route) else offline.classify(question, known_entities)


def offline_is_confident(question: str, decision: Decision) -> tuple[bool, str]:
    """(whether the offline router's decision stands without a model, the reason in plain words)."""
    rule = str((decision.signals or {}).get("rule") or "")
    if decision.strategy == "sql":  # the offline table planner matched a table the question names (issue 12)
        return True, f"the question names a table the offline planner can query ({decision.kind or 'sql'})"
    comparison = has_comparison_cue(question)
    if comparison and rule in ("default", "entities", "value_question"):
        # seed 002: a comparison is one search per target (or one SQL query over a table), not a graph walk
        return False, f"the question compares ('{comparison}'): the model decides (vector, graph or sql)"
    if rule in CONFIDENT_RULES:
        return True, f"offline rule '{rule}' matched the question"
    if rule == "default":
        value = VALUE_QUESTION.search(_norm(question))
        entities = list((decision.signals or {}).get("entities") or [])
        statistic = detect_function(question)
        if statistic:  # maybe a table question (sql): the route rules do not plan tables
            return False, (f"no route rule matched and the question asks for a statistic ({statistic}): the model "
                           "decides (maybe sql)")
        if value and len(entities) <= 1:
            return True, (f"no pattern matched, but the question asks for a value ('{value.group(0)}') and names "
                          f"{len(entities)} graph entit{'y' if len(entities) == 1 else 'ies'}: a factual lookup")
        return False, "no offline rule matched (the default 'vector' is a guess), so the model decides"
    return False, f"offline rule {rule!r} is not one the tiers trust, so the model decides"


class MemoQueryEmbedder:
    """The configured embedder with a memory of query vectors (LRU). The offline router's table planner embeds the
    same table, column and value names for every question; with this the offline tier costs one embedding of the
    new text instead of every name again. Documents are passed through (the offline engine keeps its own)."""

    def __init__(self, settings: Settings, size: int = 4096) -> None:
        self._settings = settings
        self._size = size
        self._inner: Any = None
        self._memo: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def inner(self) -> Any:
        if self._inner is None:
            from rag.embeddings import get_embedder

            self._inner = get_embedder(self._settings)
        return self._inner

    @property
    def name(self) -> str:
        from rag.embeddings import embedder_name

        return str(getattr(self._inner, "name", "")) if self._inner is not None else embedder_name(self._settings)

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    def embed_query(self, text: str) -> list[float]:
        with self._lock:
            if text in self._memo:
                self._memo.move_to_end(text)
                return self._memo[text]
        vector = self.inner.embed_query(text)
        with self._lock:
            self._memo[text] = vector
            while len(self._memo) > self._size:
                self._memo.popitem(last=False)
        return vector

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.inner.embed_documents(texts)


__all__ = ["CONFIDENT_RULES", "MemoQueryEmbedder", "offline_is_confident", "offline_route"]
