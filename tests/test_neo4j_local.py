"""`python -m rag neo4j start | status | stop`: the Docker-free local Neo4j.

The refusals (short password, busy port, nothing running, a stale pid file) need no JVM. One real
start/status/stop cycle runs with the test Neo4j's requirements (Java, Maven, the built jar): it starts a
second server on a free port in a temp directory, so the suite's own server is left alone.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import pytest

from rag import neo4j_local
from rag.config import Settings
from rag.graphstore.neo4j_store import Neo4jGraphStore
from rag.neo4j_local import EXIT_NOT_RUNNING, LOG_FILE, STATE_FILE, cli_main, port_is_free
from rag.types import Entity, Relation, ToolUnavailable
from tests.support.neo4j import neo4j_test_uri


def rag_neo4j(*args: str, password: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ, NEO4J_USER="neo4j", NEO4J_PASSWORD=password)
    return subprocess.run([sys.executable, "-m", "rag", "neo4j", *args], capture_output=True, text=True, env=env,
                          timeout=timeout, cwd=neo4j_local.TOOL_DIR.parents[1])


def test_a_short_password_is_refused_before_anything_starts(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("NEO4J_PASSWORD", "short")
    assert cli_main(["start", "--data-dir", str(tmp_path)]) == 1
    assert "at least 8 characters" in capsys.readouterr().err
    assert not (tmp_path / STATE_FILE).exists()


def test_a_busy_port_is_refused_with_what_to_do(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("NEO4J_PASSWORD", "long-enough-password")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert cli_main(["start", "--port", str(port), "--data-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"Port {port} on 127.0.0.1 is already in use" in err and "--port" in err
    assert not (tmp_path / STATE_FILE).exists()


def test_status_and_stop_when_nothing_runs(tmp_path, capsys):
    assert cli_main(["status", "--data-dir", str(tmp_path)]) == EXIT_NOT_RUNNING
    assert "is not running" in capsys.readouterr().out
    assert cli_main(["stop", "--data-dir", str(tmp_path)]) == 0
    assert "is not running" in capsys.readouterr().err


def test_a_stale_pid_file_is_not_mistaken_for_a_running_server(tmp_path, capsys):
    # this test's own pid is alive but is not a Neo4j: the state must be treated as stale and removed
    state = {"pid": os.getpid(), "port": 1, "uri": "bolt://127.0.0.1:1", "user": "neo4j", "data_dir": str(tmp_path),
             "log": str(tmp_path / LOG_FILE)}
    (tmp_path / STATE_FILE).write_text(json.dumps(state), encoding="utf-8")
    assert cli_main(["status", "--data-dir", str(tmp_path)]) == EXIT_NOT_RUNNING
    assert not (tmp_path / STATE_FILE).exists()
    assert cli_main(["stop", "--data-dir", str(tmp_path)]) == 0  # and nothing was signalled
    capsys.readouterr()


@pytest.mark.neo4j
@pytest.mark.slow
def test_start_status_stop_cycle(tmp_path):
    neo4j_test_uri()  # same requirements as the other Neo4j tests (skip locally without them, fail under CI)
    from neo4j import GraphDatabase

    data_dir, password = tmp_path / "neo4j", "cycle-password-1"
    began = time.monotonic()
    started = rag_neo4j("start", "--port", "0", "--data-dir", str(data_dir), password=password)
    assert started.returncode == 0, started.stderr
    startup_s = time.monotonic() - began
    uri = next(line.split("=", 1)[1] for line in started.stdout.splitlines() if line.startswith("NEO4J_URI="))
    port = int(uri.rsplit(":", 1)[1])
    assert uri.startswith("bolt://127.0.0.1:")
    assert f"export NEO4J_URI={uri} NEO4J_USER=neo4j" in started.stdout
    settings = Settings.from_env(data_dir_override=tmp_path / "rag", neo4j_uri=uri, neo4j_password=password)
    store = None
    try:
        store = Neo4jGraphStore(settings)
        store.upsert("d1", [Entity("Alice", "person")], [Relation("Alice", "leads", "Zeta Team", "Alice leads Zeta.",
                                                                   "d1", "d1:0")])
        assert store.counts() == {"entities": 2, "relations": 1}
        with GraphDatabase.driver(uri, auth=("neo4j", password)) as driver:
            records, _, _ = driver.execute_query("CREATE (n:CycleCheck {at: $t}) RETURN n.at AS at", t=startup_s)
            assert records[0]["at"] == startup_s

        again = rag_neo4j("start", "--data-dir", str(data_dir), password=password)
        assert again.returncode == 0 and "already running" in again.stderr
        assert f"NEO4J_URI={uri}" in again.stdout

        status = rag_neo4j("status", "--data-dir", str(data_dir), password=password)
        assert status.returncode == 0 and "accepting connections" in status.stdout
        assert f"NEO4J_URI={uri}" in status.stdout
    finally:
        stopped = rag_neo4j("stop", "--data-dir", str(data_dir), password=password, timeout=120)
    assert stopped.returncode == 0 and "stopped cleanly" in stopped.stderr, stopped.stderr
    assert "STOPPED" in (data_dir / LOG_FILE).read_text(encoding="utf-8")  # the shutdown hook finished
    assert rag_neo4j("status", "--data-dir", str(data_dir), password=password).returncode == EXIT_NOT_RUNNING
    assert port_is_free(port)
    assert not (data_dir / STATE_FILE).exists()
    # a store opened while the server ran now says plainly that it is gone
    assert store is not None
    with pytest.raises(ToolUnavailable, match=f"Neo4j at {uri} is not reachable .while counting"):
        store.counts()
    store.close()
