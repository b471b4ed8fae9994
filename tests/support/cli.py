"""Run ``python -m rag ...`` as a separate process on a data directory (the fault suite's other process)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Mapping, Sequence

REPO_ROOT = Path(__file__).resolve().parents[2]


def rag_env(data_dir: Path | str, **extra: str) -> dict[str, str]:
    """The environment of a CLI process: this one's, pointed at ``data_dir``, offline, plus ``extra``."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY", "NEO4J_URI", "CHROMA_HOST",
                        "RAG_ENGINE", "RAG_FAULT_AT")}
    env.update(RAG_DATA_DIR=str(data_dir), ANONYMIZED_TELEMETRY="False", RAG_ENGINE="offline", **extra)
    return env


def run_rag(args: Sequence[str], data_dir: Path | str, timeout: float = 300, env: Mapping[str, str] | None = None,
            **extra: str) -> subprocess.CompletedProcess:
    """``python -m rag ARGS`` to completion (or to its death: a killed process has returncode -9)."""
    return subprocess.run([sys.executable, "-m", "rag", *args], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=timeout, env=dict(env) if env is not None else rag_env(data_dir, **extra))


def start_rag(args: Sequence[str], data_dir: Path | str, **extra: str) -> subprocess.Popen:
    """``python -m rag ARGS`` started in the background."""
    return subprocess.Popen([sys.executable, "-m", "rag", *args], cwd=REPO_ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=rag_env(data_dir, **extra))
