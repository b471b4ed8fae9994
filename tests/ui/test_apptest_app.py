"""The app frame (AppTest): navigation, the teaching-notes toggle and the active backends in the sidebar.

AppTest (Streamlit 1.67) drops the sidebar of an ``st.navigation`` app from its element tree after the first run,
so the sidebar is checked on first runs, with the toggle's state preset where needed.
"""
from __future__ import annotations

from rag_ui.state import TEACHING_NOTES
from tests.ui.conftest import texts


def sidebar_text(at) -> str:
    return "\n".join([str(m.value) for m in at.sidebar.markdown] + [str(c.value) for c in at.sidebar.caption])


def test_sidebar_lists_active_backends_and_teaching_toggle(open_app, data_dir):
    at = open_app()
    text = sidebar_text(at)
    assert "Active backends" in text
    assert "chroma" in text and "embedded (networkx)" in text and "offline" in text
    assert str(data_dir) in text
    assert at.sidebar.toggle(key=TEACHING_NOTES).value is False


def test_teaching_toggle_keeps_its_state(open_app):
    at = open_app(**{TEACHING_NOTES: True})
    assert at.sidebar.toggle(key=TEACHING_NOTES).value is True
    at.switch_page("app_pages/ask.py").run()
    assert at.session_state[TEACHING_NOTES] is True


def test_every_page_renders_without_an_exception(open_app):
    for page in ("app_pages/home.py", "app_pages/documents.py", "app_pages/ask.py", "app_pages/inspector.py", "app_pages/graph.py"):
        at = open_app(page)
        assert at.title, page
        assert texts(at), page
