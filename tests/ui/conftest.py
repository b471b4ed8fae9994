"""Fixtures of the UI tests: a knowledge base with the sample documents (ingested once per session by clicking the
Home page's button) and an ``open_app`` helper that runs app.py on one page with session state preset."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest


REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 180  # seconds per script run: the first one loads the embedder on a busy 2-core machine


@pytest.fixture(scope="session")
def sample_home(tmp_path_factory):
    """Home page of an empty data dir after a click on "Load the sample documents": (data dir, AppTest).

    The one real ingest of the samples per test session; the tests that need documents reuse its data dir."""
    path = tmp_path_factory.mktemp("samples") / "data"
    saved = os.environ.get("RAG_DATA_DIR")
    os.environ["RAG_DATA_DIR"] = str(path)
    try:
        at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
        at.run()
        before = {m.label: m.value for m in at.metric}
        at.button(key="load_samples").click().run()
    finally:
        if saved is None:
            os.environ.pop("RAG_DATA_DIR", None)
        else:
            os.environ["RAG_DATA_DIR"] = saved
    at.before_counts = before
    return path, at


@pytest.fixture(scope="session")
def sample_data_dir(sample_home) -> Path:
    return sample_home[0]


@pytest.fixture
def samples(sample_data_dir, monkeypatch) -> Path:
    """Point this test's app at the ingested sample knowledge base."""
    monkeypatch.setenv("RAG_DATA_DIR", str(sample_data_dir))
    return sample_data_dir


@pytest.fixture
def open_app():
    """``open_app("app_pages/ask.py", **session_state)``: app.py switched to that page and run once."""
    def _open(page: str | None = None, query: dict | None = None, **state) -> AppTest:
        at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
        for key, value in state.items():
            at.session_state[key] = value
        if query:
            at.query_params.update(query)
        if page:
            at.switch_page(page)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        return at
    return _open


def texts(at: AppTest) -> str:
    """All markdown, captions, alerts, titles and headers of a run, as one string to search."""
    parts = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning", "error", "success",
                 "text", "code"):
        parts += [str(e.value) for e in getattr(at, kind)]
    return "\n".join(parts)
