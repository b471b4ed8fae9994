"""Prerequisites of a test (a binary, a data set, a server): skipped on a developer's machine without them, a
failure under CI (``CI`` set), where ``scripts/test.sh`` provides them and a skip would hide a test that never ran.

    from tests.support.prereq import needs, require

    @needs(shutil.which("dot") is not None, "graphviz `dot`", "apt-get install graphviz")
    def test_dot(): ...

    def fixture():
        require(exe.exists(), "the chroma CLI", "pip install -r requirements.txt")
"""
from __future__ import annotations

import os
from typing import Callable

import pytest


def _message(what: str, how: str) -> str:
    return f"{what} is missing ({how})"


def require(ok: bool, what: str, how: str) -> None:
    """Inside a test or fixture: return when ``ok``; otherwise skip, or fail under CI."""
    if ok:
        return
    if os.environ.get("CI"):
        pytest.fail(_message(what, how) + "; under CI a missing prerequisite fails instead of skipping")
    pytest.skip(_message(what, how))


def needs(ok: bool, what: str, how: str) -> Callable:
    """Decorator form of ``require``, checked before any fixture is set up."""
    def decorate(test: Callable) -> Callable:
        if ok:
            return test
        if not os.environ.get("CI"):
            return pytest.mark.skip(reason=_message(what, how))(test)

        def missing() -> None:  # asks for no fixtures: fails at once
            require(False, what, how)

        missing.__name__, missing.__qualname__, missing.__doc__ = test.__name__, test.__qualname__, test.__doc__
        missing.pytestmark = list(getattr(test, "pytestmark", []))  # type: ignore[attr-defined]
        return missing
    return decorate
