"""Start a real server process for a test, wait until it answers on 127.0.0.1, and stop it afterwards."""
from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Mapping, Sequence


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_server(cmd: Sequence[str], health_url: str, log_path: Path, *, env: Mapping[str, str] | None = None,
                   cwd: Path | None = None, start_timeout_s: float = 60, stop_timeout_s: float = 20,
                   name: str = "server") -> Iterator[subprocess.Popen]:
    """Run ``cmd`` with its output in ``log_path``; yield once ``health_url`` answers 2xx.

    Raises AssertionError with the log's tail when the process exits or the deadline passes first.
    """
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(list(cmd), stdout=log, stderr=subprocess.STDOUT, env=dict(env) if env else None,
                                cwd=cwd)
        try:
            deadline = time.monotonic() + start_timeout_s
            while True:
                try:
                    with urllib.request.urlopen(health_url, timeout=2):
                        break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        log.flush()
                        tail = Path(log_path).read_text(errors="replace")[-3000:]
                        raise AssertionError(f"{name} did not start:\n{tail}")
                    time.sleep(0.5)
            yield proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=stop_timeout_s)
            except subprocess.TimeoutExpired:
                proc.kill()
