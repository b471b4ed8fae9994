"""tests/support/prereq.py: a missing prerequisite skips on a developer's machine and fails under CI."""
from __future__ import annotations

import pytest

from tests.support.prereq import needs, require


def make_test():
    def sample_test(fixture_a):
        """A test that needs fixture_a."""
    return sample_test  # a new function each time: marks are stored on it


def test_present_prerequisite_changes_nothing(monkeypatch):
    monkeypatch.setenv("CI", "1")
    sample_test = make_test()
    assert needs(True, "x", "y")(sample_test) is sample_test
    require(True, "x", "y")


def test_missing_prerequisite_skips_locally(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    marked = needs(False, "graphviz `dot`", "apt-get install graphviz")(make_test())
    [mark] = marked.pytestmark
    assert mark.name == "skip" and "graphviz `dot` is missing" in mark.kwargs["reason"]
    with pytest.raises(pytest.skip.Exception, match="the chroma CLI is missing"):
        require(False, "the chroma CLI", "pip install")


def test_missing_prerequisite_fails_under_ci_before_any_fixture(monkeypatch):
    monkeypatch.setenv("CI", "true")
    failing = needs(False, "graphviz `dot`", "apt-get install graphviz")(pytest.mark.slow(make_test()))
    assert failing.__name__ == "sample_test" and [m.name for m in failing.pytestmark] == ["slow"]
    with pytest.raises(pytest.fail.Exception, match="under CI a missing prerequisite fails"):
        failing()  # no arguments: it asks for no fixtures
    with pytest.raises(pytest.fail.Exception, match="the chroma CLI is missing"):
        require(False, "the chroma CLI", "pip install")
