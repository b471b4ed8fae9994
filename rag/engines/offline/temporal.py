"""Time relative to today and to the knowledge base.

- ``today``: the engine's clock (tests set it: ``OfflineEngine(settings, clock=lambda: date(2026, 12, 1))``), else
  ``RAG_TODAY=YYYY-MM-DD``, else the system date. No fixed year anywhere.
- A question with a marker of fresh information ("latest", "today", "이번 달", "最新") goes to the web; so does
  one naming a year the knowledge base does not mention when that year is recent (this year or last year).
  A year the documents mention is a dated event they cover: it goes to the documents.
- In grading, a period marker ("this year", "올해", "今年") requires today's year in a document graded correct;
  "latest" / "최신" / "最新" cannot be confirmed by a document at all (it is at most ambiguous).
"""
from __future__ import annotations

import os
import re
from datetime import date

from rag.engines.offline.rules import PERIOD_MARKERS, TEMPORAL_MARKERS
from rag.engines.offline.text import _contains_phrase, _norm

_YEAR = re.compile(r"(?<!\d)((?:19|20|21)\d{2})(?!\d)")


def system_today() -> date:
    raw = os.environ.get("RAG_TODAY", "").strip()
    if raw:
        try:
            return date.fromisoformat(raw)
        except ValueError:
            pass
    return date.today()


def temporal_markers(question: str) -> list[str]:
    q = _norm(question)
    return [m for m in TEMPORAL_MARKERS if _contains_phrase(q, m)]


def years_in(question: str) -> list[int]:
    return [int(y) for y in _YEAR.findall(_norm(question))]


def freshness_requirement(question: str, today: date) -> tuple[list[str], list[str]]:
    """(years a correct document must state, markers no document can confirm) for the question's time words."""
    markers = temporal_markers(question)
    required: list[str] = []
    unconfirmable: list[str] = []
    for m in markers:
        period = PERIOD_MARKERS.get(m)
        if period is None:
            unconfirmable.append(m)
            continue
        year = today.year
        if period == "day" and m in ("yesterday", "어제", "昨天") and today.month == 1 and today.day == 1:
            year -= 1
        if str(year) not in required:
            required.append(str(year))
    return required, unconfirmable


class Clock:
    """Today's date for the engine (part of ``OfflineEngine``)."""

    def today(self) -> date:
        clock = getattr(self, "clock", None)
        return clock() if clock is not None else system_today()

    def kb_mentions(self, text: str, *also: str) -> bool | None:
        """Whether the knowledge base's sentences mention ``text`` (and each of ``also`` in the same chunk); None when
        there is no sentence store yet."""
        from rag.sentences import DB_NAME, store_for

        if not (self.settings.data_dir / DB_NAME).exists():
            return None
        store = store_for(self.settings.data_dir)
        if store.count() == 0:
            return None
        return store.mentions(text, *also)
