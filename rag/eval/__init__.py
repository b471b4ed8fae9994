"""Evaluation: question sets, metrics, the runner behind `python -m rag eval`, and peer-suite loading.

    from rag.eval import load_questions, evaluate
    report = evaluate(load_questions("sample_docs/questions.jsonl"), ["naive", "agentic"], kb, engine, settings, store)
    report["variants"]["agentic"]["silent_failure_rate"]
"""
from __future__ import annotations

from typing import Any

from rag.eval.metrics import aggregate, key_fact_hit, routing_confusion, score_run
from rag.eval.peer import PeerSuite, load_peer_suite, write_peer_suite
from rag.eval.questions import Question, QuestionSet, QuestionSetError, load_questions, parse_questions

__all__ = [
    "Question", "QuestionSet", "QuestionSetError", "load_questions", "parse_questions",
    "aggregate", "key_fact_hit", "routing_confusion", "score_run",
    "PeerSuite", "load_peer_suite", "write_peer_suite", "evaluate",
]


def evaluate(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """See rag.eval.runner.evaluate (imported lazily: it pulls in the engine)."""
    from rag.eval.runner import evaluate as _evaluate

    return _evaluate(*args, **kwargs)
