"""Ask page (AppTest): a question over RAG_MAX_QUESTION_CHARS is not run; the page says why and keeps the text."""
from __future__ import annotations

from rag.config import DEFAULT_MAX_QUESTION_CHARS
from rag_ui.state import ASK_RESULT, QUESTION
from tests.ui.conftest import texts


def test_a_too_long_question_says_so_and_is_not_run(open_app):
    long_question = "Who founded Alpha? " * 200  # 3,800 characters
    at = open_app("app_pages/ask.py", **{QUESTION: long_question})
    at.button(key="ask").click().run()
    assert not at.exception, [e.value for e in at.exception]
    shown = texts(at)
    assert f"the limit is {DEFAULT_MAX_QUESTION_CHARS:,} (RAG_MAX_QUESTION_CHARS)" in shown and "too long" in shown
    assert at.session_state[ASK_RESULT] is None and at.session_state[QUESTION] == long_question
