"""Shared fixtures: every test gets its own data directory; no test reaches a non-loopback address."""
from __future__ import annotations

import ipaddress
import os
import socket

import pytest

os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
# Keys of the developer's shell must not leak into tests: each test configures what it needs.
for _name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY", "NEO4J_URI", "CHROMA_HOST", "RAG_ENGINE"):
    os.environ.pop(_name, None)


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    path = tmp_path / "data"
    path.mkdir()
    monkeypatch.setenv("RAG_DATA_DIR", str(path))
    return path


_real_connect = socket.socket.connect


def _guarded_connect(self, address):
    host = address[0] if isinstance(address, tuple) else None
    if host is not None:
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            ip = None if host == "localhost" else "name"
        if ip == "name" or (ip is not None and not ip.is_loopback):
            raise RuntimeError(f"test tried to reach the network: {address!r}")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
