"""The real Neo4j of the test run (started by scripts/test.sh with `python -m rag neo4j start`).

``neo4j_overrides()`` gives the Settings overrides that point at it. Without ``RAG_TEST_NEO4J_URI`` a
test skips — unless ``CI`` is set, where a missing Neo4j is a failure, not a skip.
"""
from __future__ import annotations

import os
from typing import Any

import pytest

from rag.neo4j_local import DEFAULT_PASSWORD


def neo4j_test_uri() -> str:
    uri = os.environ.get("RAG_TEST_NEO4J_URI")
    if not uri:
        if os.environ.get("CI"):
            pytest.fail("RAG_TEST_NEO4J_URI is not set under CI: scripts/test.sh must start Neo4j "
                        "(python -m rag neo4j start) before pytest")
        pytest.skip("no test Neo4j: run scripts/test.sh, or `python -m rag neo4j start` and set RAG_TEST_NEO4J_URI "
                    "(and NEO4J_PASSWORD_TEST)")
    return uri


def neo4j_password() -> str:
    return os.environ.get("NEO4J_PASSWORD_TEST") or DEFAULT_PASSWORD


def neo4j_overrides() -> dict[str, Any]:
    """Settings overrides for the test Neo4j (the user is the server's admin, ``neo4j``)."""
    return {"neo4j_uri": neo4j_test_uri(), "neo4j_user": "neo4j", "neo4j_password": neo4j_password(),
            "neo4j_database": None}


def admin_driver():
    """An official driver logged in to the test Neo4j, for checks made directly in the database."""
    from neo4j import GraphDatabase

    return GraphDatabase.driver(neo4j_test_uri(), auth=("neo4j", neo4j_password()))
