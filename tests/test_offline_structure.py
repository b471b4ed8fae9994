"""The offline engine is a package of small modules, one reason to change each (issue 8, point 5: "no module over
~400 lines"; read here as at most 10 % over), and none of them imports the UI."""
from __future__ import annotations

from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "rag" / "engines" / "offline"
MODULES = sorted(PACKAGE.glob("*.py"))
MAX_LINES = 440


def test_the_package_has_its_modules():
    names = {p.stem for p in MODULES}
    assert {"routing", "grading", "answering", "direct", "vocabulary", "rules", "values", "answertype",
            "attribute", "candidates", "selection", "coverage"} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_module_is_long(path):
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{path.name} has {lines} lines (at most {MAX_LINES})"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_module_imports_the_ui(path):
    text = path.read_text(encoding="utf-8")
    assert "import streamlit" not in text and "from streamlit" not in text
    assert "import rag_ui" not in text and "from rag_ui" not in text
