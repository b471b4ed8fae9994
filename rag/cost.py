"""Cost accounting: input and output tokens per role of every run, and money when a price table is set.

The role of a model call comes from its purpose (``classify`` → router, ``grade`` → grader, ``generate`` →
generator, …, the method names of ``rag.engines.roles``). Prices: ``RAG_LLM_PRICES`` (``Settings.llm_prices``),
US dollars per million tokens, input/output, per model; ``*`` prices every model not named:

    RAG_LLM_PRICES="gpt-4o-mini=0.15/0.60,gpt-4o=2.50/10"

Without a price table runs still carry their tokens per role; money is ``None`` (never a made-up figure).
A model the table does not name is listed under ``unpriced`` and its tokens are left out of the money.
"""
from __future__ import annotations

from typing import Any, Iterable

from rag.types import ModelCall, RagError

PURPOSE_ROLES: dict[str, str] = {
    "classify": "router", "grade": "grader", "evaluate": "evaluator", "rewrite": "rewriter", "generate": "generator",
    "extract": "extractor", "decide_tool": "agent", "grade_hallucination": "hallucination",
    "grade_answer": "answer_grader", "classify_complexity": "complexity", "refine": "refiner",
}
Prices = dict[str, tuple[float, float]]  # model -> (USD per 1M input tokens, USD per 1M output tokens)


def role_of(call: ModelCall) -> str:
    """The role a call played: from its purpose; a purpose that is already a role name stays; else the purpose."""
    purpose = str(call.purpose or "other")
    return PURPOSE_ROLES.get(purpose, purpose)


def parse_prices(text: str | None) -> Prices:
    """``"gpt-4o-mini=0.15/0.60,*=1/2"`` -> ``{"gpt-4o-mini": (0.15, 0.6), "*": (1.0, 2.0)}``; raises ``RagError``
    with the offending part when it is not ``model=input/output``."""
    prices: Prices = {}
    for part in (text or "").replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        model, _, pair = part.partition("=")
        values = pair.split("/")
        try:
            if not model.strip() or len(values) != 2:
                raise ValueError
            prices[model.strip()] = (float(values[0]), float(values[1]))
        except ValueError:
            raise RagError(f"RAG_LLM_PRICES: {part!r} is not model=input/output in USD per 1M tokens "
                           "(e.g. gpt-4o-mini=0.15/0.60)") from None
    return prices


def price_of(model: str, prices: Prices) -> tuple[float, float] | None:
    return prices.get(model) or prices.get("*")


def tokens_by_role(calls: Iterable[ModelCall], prices: Prices | None = None) -> dict[str, dict[str, Any]]:
    """``{role: {"calls", "input", "output", "models", "usd"}}`` in the order roles first appear; ``usd`` is
    None without a price for every model of that role."""
    out: dict[str, dict[str, Any]] = {}
    for call in calls:
        row = out.setdefault(role_of(call), {"calls": 0, "input": 0, "output": 0, "models": [], "usd": 0.0})
        row["calls"] += 1
        row["input"] += int(call.prompt_tokens or 0)
        row["output"] += int(call.completion_tokens or 0)
        if call.model not in row["models"]:
            row["models"].append(call.model)
        price = price_of(call.model, prices or {})
        if price is None or row["usd"] is None:
            row["usd"] = None
        else:
            row["usd"] += (call.prompt_tokens * price[0] + call.completion_tokens * price[1]) / 1e6
    for row in out.values():
        if row["usd"] is not None:
            row["usd"] = round(row["usd"], 8)
    return out


def run_cost(calls: Iterable[ModelCall], price_text: str | None) -> dict[str, Any]:
    """What ``Run.totals()["cost"]`` holds: tokens and money per role, the total money (None without prices or
    when a price table is unreadable; ``unpriced`` names the models it lacks)."""
    calls = list(calls)
    try:
        prices = parse_prices(price_text)
        problem = None
    except RagError as exc:
        prices, problem = {}, str(exc)
    by_role = tokens_by_role(calls, prices)
    unpriced = sorted({c.model for c in calls if price_of(c.model, prices) is None})
    priced = bool(prices) and not unpriced
    usd = None
    if prices:
        usd = round(sum((c.prompt_tokens * p[0] + c.completion_tokens * p[1]) / 1e6
                        for c in calls if (p := price_of(c.model, prices)) is not None), 8)
    out: dict[str, Any] = {"by_role": by_role, "usd": usd, "complete": priced or not calls, "unpriced": unpriced}
    if problem:
        out["price_error"] = problem
    return out


def variant_costs(rows: Iterable[dict[str, Any]], get_run: Any, price_text: str | None = None) -> list[dict[str, Any]]:
    """Per variant of an evaluation report's question rows (each with ``variant`` and ``run_id``): runs, model calls,
    input / output tokens per role, money in total and per question. ``get_run(run_id)`` loads a run (a
    ``RunStore.get``); ``price_text`` (the current ``RAG_LLM_PRICES``) wins over each run's recorded table."""
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        run = get_run(row["run_id"]) if row.get("run_id") else None
        entry = out.setdefault(row["variant"], {"variant": row["variant"], "runs": 0, "model calls": 0,
                                                "input tokens": 0, "output tokens": 0, "usd": 0.0, "roles": {}})
        entry["runs"] += 1
        if run is None:
            continue
        cost = run_cost(run.model_calls, price_text or (run.settings or {}).get("llm_prices"))
        entry["model calls"] += run.llm_calls
        for role, r in cost["by_role"].items():
            entry["input tokens"] += r["input"]
            entry["output tokens"] += r["output"]
            both = entry["roles"].setdefault(role, [0, 0])
            both[0] += r["input"]
            both[1] += r["output"]
        if entry["usd"] is not None:
            entry["usd"] = None if cost["usd"] is None and run.llm_calls else entry["usd"] + (cost["usd"] or 0.0)
    table = []
    for entry in out.values():
        roles = entry.pop("roles")
        entry["tokens per role (in/out)"] = ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in roles.items()) or "–"
        entry["usd per question"] = (round(entry["usd"] / entry["runs"], 8)
                                     if entry["usd"] is not None and entry["runs"] else None)
        entry["usd"] = round(entry["usd"], 8) if entry["usd"] is not None else None
        table.append(entry)
    return table


def format_usd(value: float | None) -> str:
    """``$0.000123`` style, enough digits for a single cheap run; ``–`` for no figure."""
    if value is None:
        return "–"
    return f"${value:.6f}" if value < 0.01 else f"${value:.4f}"


__all__ = ["PURPOSE_ROLES", "Prices", "format_usd", "parse_prices", "price_of", "role_of", "run_cost",
           "tokens_by_role", "variant_costs"]
