"""The question length cap (settings.max_question_chars, RAG_MAX_QUESTION_CHARS): a clear message in run_question and
the CLI, nothing run and nothing stored. Before: a 50,000-character question was accepted."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rag.config import DEFAULT_MAX_QUESTION_CHARS, Settings
from rag.runstore import RunStore
from rag.types import RagError
from rag.variants import run_question
from tests.support.scripted import ListTool, ScriptedEngine, ToolsKB, make_doc

REPO = Path(__file__).resolve().parents[1]


def kb() -> ToolsKB:
    return ToolsKB({"vector": ListTool("vector", [make_doc("a:0", "Kim founded Alpha.")]),
                    "graph": ListTool("graph", []), "web": ListTool("web", [], available=(False, "no key"))})


def test_a_question_over_the_cap_is_refused_with_the_setting_named(data_dir):
    settings = Settings.from_env(data_dir_override=data_dir)
    assert settings.max_question_chars == DEFAULT_MAX_QUESTION_CHARS == 2000
    engine, store = ScriptedEngine(), RunStore(data_dir)
    with pytest.raises(RagError, match=r"too long: 2,001 characters, the limit is 2,000 \(RAG_MAX_QUESTION_CHARS\)"):
        run_question("x" * 2001, kb(), engine, settings, store=store)
    assert engine.calls == [] and store.list() == []  # nothing ran, nothing was stored
    run = run_question("  " + "x" * 2000 + "  ", kb(), engine, settings)  # the cap counts the stripped question
    assert run.error is None


def test_the_cap_comes_from_the_environment(data_dir, monkeypatch):
    monkeypatch.setenv("RAG_MAX_QUESTION_CHARS", "10")
    settings = Settings.from_env(data_dir_override=data_dir)
    with pytest.raises(RagError, match="limit is 10"):
        run_question("Who founded Alpha?", kb(), ScriptedEngine(), settings)
    monkeypatch.setenv("RAG_MAX_QUESTION_CHARS", "ten")
    with pytest.raises(ValueError, match="RAG_MAX_QUESTION_CHARS must be a whole number"):
        Settings.from_env(data_dir_override=data_dir)


def test_cli_ask_refuses_a_50000_character_question(data_dir):
    out = subprocess.run([sys.executable, "-m", "rag", "ask", "x" * 50_000], cwd=REPO, capture_output=True,
                         text=True, timeout=300, env=dict(os.environ, RAG_DATA_DIR=str(data_dir)))
    assert out.returncode == 1
    assert "error: the question is too long: 50,000 characters, the limit is 2,000" in out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""
