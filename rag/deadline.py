"""The per-run deadline (``settings.run_deadline_s``, env ``RAG_RUN_DEADLINE``).

``run_question`` opens one with ``run_deadline(seconds)``; code that may wait (a graph node, a model request)
asks ``current()`` how long is left and calls ``check(what)`` before it starts. Passing the deadline raises
``DeadlineExceeded``, which the variant records as a failed step: the run stops with that reason.
A context variable carries it, so the engine needs no extra argument and parallel runs (threads, Streamlit
sessions) each see their own.
"""
from __future__ import annotations

import contextlib
import contextvars
import math
import time
from typing import Iterator

from rag.types import RagError


class DeadlineExceeded(RagError):
    """The run used up its time (``RAG_RUN_DEADLINE``); nothing after this point was done."""


class Deadline:
    """``seconds`` from now (``None`` or 0: never). ``hit`` is set once a check found it passed."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = float(seconds) if seconds else None
        self.started = time.monotonic()
        self.expires_at = self.started + self.seconds if self.seconds else math.inf
        self.hit = False

    def remaining(self) -> float:
        return self.expires_at - time.monotonic()

    def passed(self) -> bool:
        return self.remaining() <= 0

    def exceeded(self, what: str) -> DeadlineExceeded:
        """The error to raise for ``what`` (e.g. "step 'grade_documents'"); marks the deadline as hit."""
        self.hit = True
        return DeadlineExceeded(f"the run deadline of {self.seconds:g} s (RAG_RUN_DEADLINE) passed "
                                f"{time.monotonic() - self.started:.1f} s into the run, at {what}")

    def check(self, what: str) -> None:
        if self.passed():
            raise self.exceeded(what)


_current: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar("rag_run_deadline", default=None)


def current() -> Deadline | None:
    """The deadline of the run in progress, or None outside a run."""
    return _current.get()


def check(what: str) -> None:
    """Raise ``DeadlineExceeded`` when the current run's deadline has passed (no-op outside a run)."""
    deadline = _current.get()
    if deadline is not None:
        deadline.check(what)


@contextlib.contextmanager
def run_deadline(seconds: float | None) -> Iterator[Deadline]:
    deadline = Deadline(seconds)
    token = _current.set(deadline)
    try:
        yield deadline
    finally:
        _current.reset(token)
