"""One question through several variants on the same index, side by side (the Ask page's compare view and
``python -m rag compare``). Every run is a normal recorded run; the rows below are drawn from the traces only."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from rag.config import Settings
from rag.failures import label_run, summary
from rag.trace import Run
from rag.types import DecisionEngine, RagError


def parse_variants(text: str | Sequence[str] | None) -> list[str]:
    """"a,b,c" or a list → registered variant names, in order, without duplicates; "all" (or empty) → every one."""
    from rag.variants import VARIANTS

    names = [n.strip() for n in (text.split(",") if isinstance(text, str) else (text or [])) if n and n.strip()]
    if not names or names == ["all"]:
        return list(VARIANTS)
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        raise RagError(f"unknown variant(s) {', '.join(unknown)}: choose from {', '.join(VARIANTS)}")
    return list(dict.fromkeys(names))


def compare_variants(question: str, variants: Sequence[str], kb: Any, engine: DecisionEngine, settings: Settings,
                     store: Any = None, on_run: Callable[[str, Run], None] | None = None,
                     on_step_for: Callable[[str], Any] | None = None) -> list[Run]:
    """Run ``question`` with each variant in turn; ``on_run(variant, run)`` after each one."""
    from rag.variants import run_question

    runs = []
    for name in variants:
        on_step = on_step_for(name) if on_step_for else None
        run = run_question(question, kb=kb, engine=engine, settings=settings, variant=name, on_step=on_step,
                           store=store)
        runs.append(run)
        if on_run:
            on_run(name, run)
    return runs


def compare_row(run: Run) -> dict[str, Any]:
    """What a compare column shows: path, model calls / tokens / time, attempts, F-labels, answer, citations."""
    from rag.variants import registry

    failures = label_run(run)
    return {**run.to_cli_json(), "label": registry.info(run.variant, "label", run.variant),
            "min_calls": registry.info(run.variant, "min_calls", ""),
            "failures": [f.to_dict() for f in failures], "failure_summary": summary(failures)}
