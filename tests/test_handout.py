"""Handouts: one self-contained HTML file per run, fork or lesson; escaped text, inline SVG, no external references."""
from __future__ import annotations

import re

import pytest

from rag import handout
from rag.cli import main as cli_main
from rag.engines import get_engine
from rag.lessons import load_lessons, run_lesson
from rag.replay import fork_run
from rag.runstore import RunStore
from rag.variants import run_question
from tests.support.kb import build_kb

HOSTILE = "# Notes\n\nAtlas pricing is <script>alert('x')</script> 30 dollars per seat <img src=https://example.com/p.png>."
EXTERNAL = re.compile(  # inside a tag or a style: a reference a browser would fetch
r"""(?:src|href|action|data)\s*=\s*["']?\s*(?:https?:)?//|url\(\s*["']?(?:https?:)?//|@import""",
                      re.I)



def external_references(text: str) -> list[str]:
    """Tags (and CSS) that point outside the file; escaped text such as '&lt;img src=…' is not a tag."""
    return [tag for tag in re.findall(r"<[^>]+>", text) if EXTERNAL.search(tag)] + EXTERNAL.findall(
        "".join(re.findall(r"<style>(.*?)</style>", text, re.S)))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    kb = build_kb(tmp_path_factory.mktemp("handout") / "data", {"atlas.md": HOSTILE})
    store = RunStore(kb.settings.data_dir)
    run = run_question("How much does an Atlas seat cost?", kb=kb, engine=get_engine(kb.settings),
                       settings=kb.settings, variant="agentic", store=store)
    yield kb, store, run
    kb.close()


def test_run_handout_is_self_contained_and_escaped(recorded):
    _, _, run = recorded
    text = handout.run_handout(run)
    assert text.startswith("<!DOCTYPE html>") and "default-src 'none'" in text
    assert "<svg" in text and "</svg>" in text  # the diagram, inline
    assert " → ".join(f"{s.index + 1} {s.node}" for s in run.steps) in text
    assert handout.esc(run.answer) in text
    assert "<script>" not in text and "&lt;script&gt;" in text  # the document's markup shows as text
    assert external_references(text) == []
    for step in run.steps:
        assert handout.esc(step.node) in text


def test_handout_without_dot_says_so(recorded, monkeypatch, tmp_path):
    _, _, run = recorded
    monkeypatch.setenv("PATH", str(tmp_path))  # no `dot` anywhere on PATH
    text = handout.run_handout(run)
    assert "<svg" not in text and handout.esc(handout.DOT_MISSING) in text
    assert "</html>" in text and handout.esc(run.answer) in text  # still a whole, readable file


def test_fork_handout_and_cli_export(recorded, monkeypatch, tmp_path, capfd):
    kb, store, run = recorded
    grade = next(s for s in run.steps if s.node == "grade_documents")
    fork = fork_run(store, run, grade.index, "grade[0]=incorrect", kb=kb, engine=get_engine(kb.settings),
                    settings=kb.settings)
    text = handout.fork_handout(run, fork)
    assert text.count("<svg") == 2 and handout.FILL_MARK in text and "what-if" in text
    monkeypatch.setenv("RAG_DATA_DIR", str(kb.settings.data_dir))
    out = tmp_path / "fork.html"
    assert cli_main(["runs", "export", fork.run_id, "-o", str(out)]) == 0
    written = out.read_text(encoding="utf-8")
    assert handout.esc(fork.answer) in written and handout.esc(run.answer) in written  # fork beside its parent
    assert "wrote" in capfd.readouterr().out
    both = tmp_path / "both.html"
    assert cli_main(["runs", "export", run.run_id, fork.run_id, "-o", str(both)]) == 0  # a comparison
    assert both.read_text(encoding="utf-8").count("<svg") == 2
    assert cli_main(["runs", "export", "nosuchrun"]) != 0


def test_lesson_handout(tmp_path):
    lesson = next(lesson for lesson in load_lessons() if lesson.code == "F6")
    result = run_lesson(lesson, tmp_path)
    text = handout.lesson_handout(result)
    assert handout.esc(lesson.explain["ko"].strip()) in text and handout.esc(lesson.question) in text
    assert text.count("<svg") == len(lesson.variants) and 'F6 #1' in text
    assert external_references(text) == []
