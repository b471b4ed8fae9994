"""Agent variants: ``VARIANTS`` (name -> class) and ``run_question``.

A new variant is one module with a class that has ``name``, ``label``, ``description``,
``run(question, kb, engine, settings, on_step=None) -> Run`` and the declarations listed in
``rag.variants.registry`` (graph, notes, answer nodes, …), plus one ``register_variant`` line below.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from rag.config import Settings
from rag.deadline import run_deadline
from rag.trace import Run
from rag.types import DecisionEngine, RagError
from rag.variants.agentic import AgenticVariant
from rag.variants.base import KnowledgeBaseLike, OnStep, Variant
from rag.variants.naive import NaiveVariant

if TYPE_CHECKING:
    from rag.runstore import RunStore

log = logging.getLogger(__name__)

from rag.variants.registry import VARIANTS, register_variant, variant_names  # noqa: E402  (the one list)
from rag.variants.adaptive import AdaptiveVariant  # noqa: E402
from rag.variants.crag import CragVariant  # noqa: E402
from rag.variants.react import ReactVariant  # noqa: E402
from rag.variants.self_rag import SelfRagVariant  # noqa: E402
from rag.variants.tool_agent import ToolAgentVariant  # noqa: E402

register_variant(AgenticVariant)
register_variant(NaiveVariant)
register_variant(ToolAgentVariant)
register_variant(SelfRagVariant)
register_variant(CragVariant)
register_variant(AdaptiveVariant)
register_variant(ReactVariant)


def get_variant(name: str) -> Variant:
    try:
        return VARIANTS[name]()
    except KeyError:
        raise RagError(f"unknown variant {name!r}: choose one of {', '.join(VARIANTS)}") from None


def run_question(question: str, kb: KnowledgeBaseLike, engine: DecisionEngine, settings: Settings,
                 variant: str = "agentic", on_step: OnStep | None = None, store: "RunStore | None" = None) -> Run:
    """Answer ``question`` with the named variant and return its trace; saved to ``store`` when given.

    Raises ``RagError`` only for an unknown variant, an empty question or one longer than
    ``settings.max_question_chars``; every failure during the run is recorded in the returned ``Run``
    (``run.error``, ``stop_reason == "error"``, or ``"deadline"`` when ``settings.run_deadline_s`` passed).
    """
    chosen = get_variant(variant)
    question = question.strip()
    if not question:
        raise RagError("the question is empty: type a question to ask")
    check_question_length(question, settings)
    with run_deadline(settings.run_deadline_s):
        run = chosen.run(question, kb, engine, settings, on_step=on_step)
    if store is not None:
        try:
            store.save(run)
        except Exception as exc:  # the answer is still worth returning
            log.warning("could not save run %s to the run store: %s", run.run_id, exc)
    return run


def check_question_length(question: str, settings: Settings) -> None:
    """Raise ``RagError`` with a plain message when the question is longer than the cap."""
    if len(question) > settings.max_question_chars:
        raise RagError(f"the question is too long: {len(question):,} characters, the limit is "
                       f"{settings.max_question_chars:,} (RAG_MAX_QUESTION_CHARS). Ask about one thing at a time, "
                       "or put long text into a document and ingest it.")


__all__ = ["VARIANTS", "register_variant", "variant_names", "check_question_length", "get_variant", "run_question",
           "Variant"]
