"""Deadlines and failed model requests (issue 9): a hanging or refusing OpenAI-compatible server.

The real langchain-openai client talks to tests/support/openai_stub.py on 127.0.0.1. A request that fails is no
measurement: the step fails with the recorded call, the run stops with the reason, `ask` exits non-zero. A run
never outlives ``run_deadline_s`` by more than half a second of request timeout (plus the time to record it).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rag.config import Settings
from rag.deadline import DeadlineExceeded, run_deadline
from rag.engines.llm import LLMEngine, ModelCallFailed
from rag.variants import run_question
from rag.variants.agentic import CLASSIFY, DIRECT_GENERATE
from tests.support.openai_stub import OpenAIStub, Reply, purpose_of, refused_base_url
from tests.support.scripted import ListTool, ToolsKB, make_doc

REPO = Path(__file__).resolve().parents[1]
SLACK_S = 4.0  # thread start-up, recording, first imports, a busy 2-core machine (the bound is 20 s × 2 without it)


def llm_settings(data_dir: Path, base_url: str, **changes) -> Settings:
    values = dict(engine="llm", openai_api_key="sk-test", openai_base_url=base_url, llm_timeout_s=20,
                  llm_retries=1, run_deadline_s=120)
    values.update(changes)
    return Settings.from_env(data_dir_override=data_dir, **values)


def tiny_kb() -> ToolsKB:
    docs = [make_doc("a:0", "Kim founded Alpha in 2019.")]
    return ToolsKB({"vector": ListTool("vector", docs), "graph": ListTool("graph", []),
                    "web": ListTool("web", [], available=(False, "TAVILY_API_KEY is not set"))}, entities=["Alpha"])


# ---- one request ----------------------------------------------------------------------------------------------------

def test_a_hanging_server_fails_the_call_after_timeout_and_retry(data_dir):
    with OpenAIStub(mode="hang") as stub:
        engine = LLMEngine(llm_settings(data_dir, stub.base_url, llm_timeout_s=1, llm_retries=1))
        started = time.monotonic()
        with pytest.raises(ModelCallFailed) as failed:
            engine.classify("Who founded Alpha?", [])
        elapsed = time.monotonic() - started
        assert len(stub.chat_requests) == 2  # one try and one retry
    assert 2.0 <= elapsed < 2.5 + SLACK_S  # 1 s + 0.5 s backoff + 1 s
    [call] = failed.value.model_calls
    assert "after 2 tries" in call.error and "did not answer within 1 s (RAG_LLM_TIMEOUT)" in call.error
    assert call.raw_output == "" and call.duration_ms >= 2000


@pytest.mark.parametrize("where", ["refused", "dropped"])
def test_a_dead_server_is_reported_as_unreachable_not_as_unusable_output(data_dir, where):
    with OpenAIStub(mode="drop") as stub:
        base_url = refused_base_url() if where == "refused" else stub.base_url
        engine = LLMEngine(llm_settings(data_dir, base_url, llm_retries=0))
        started = time.monotonic()
        with pytest.raises(ModelCallFailed, match="could not reach the model server") as failed:
            engine.grade("Who founded Alpha?", make_doc("a:0", "Kim founded Alpha."))
    assert time.monotonic() - started < 5
    assert base_url in str(failed.value) and "OPENAI_BASE_URL" in str(failed.value)
    assert "unusable" not in str(failed.value)


def test_no_request_is_sent_once_the_deadline_passed(data_dir):
    with OpenAIStub(replies=[{"strategy": "vector", "reason": "never sent"}]) as stub:
        engine = LLMEngine(llm_settings(data_dir, stub.base_url))
        with run_deadline(0.01) as deadline:
            time.sleep(0.02)
            with pytest.raises(DeadlineExceeded, match="RAG_RUN_DEADLINE") as exceeded:
                engine.classify("q", [])
        assert stub.chat_requests == [] and deadline.hit
    assert "not sent" in exceeded.value.model_calls[0].error


# ---- whole runs -----------------------------------------------------------------------------------------------------

def test_a_run_against_a_hanging_server_stops_at_its_deadline(data_dir):
    """Before: 60 s timeout x 3 tries per call, no run deadline (about 36 minutes for one ask)."""
    with OpenAIStub(mode="hang") as stub:
        settings = llm_settings(data_dir, stub.base_url, llm_timeout_s=30, run_deadline_s=2)
        started = time.monotonic()
        run = run_question("Who founded Alpha?", tiny_kb(), LLMEngine(settings), settings)
        elapsed = time.monotonic() - started
    assert elapsed < 2 + 0.5 + SLACK_S
    assert run.stop_reason == "deadline" and "RAG_RUN_DEADLINE" in run.error
    assert run.path == [CLASSIFY] and run.steps[0].status == "failed"
    [call] = run.steps[0].model_calls
    assert "did not answer within" in call.error  # the call is in the trace, with why it has no output
    assert run.abstained and not run.citations and "stopped early" in run.answer
    assert run.settings["run_deadline_s"] == 2 and run.engine["run_deadline_s"] == 2


def test_the_deadline_cuts_a_later_call_short(data_dir):
    """classify answers after 1 s; the direct answer hangs: the run stops at its 3 s deadline, classify's
    decision kept, the generator step failed with the deadline as its reason."""
    def respond(body):
        if purpose_of(body) == "classify":
            return Reply({"strategy": "direct", "reason": "general knowledge"}, delay_s=1.0)
        return Reply({"answer": "never", "unsure": False}, delay_s=3600)

    with OpenAIStub(respond=respond) as stub:
        settings = llm_settings(data_dir, stub.base_url, run_deadline_s=3)
        started = time.monotonic()
        run = run_question("Translate 'retrieval' into Korean", tiny_kb(), LLMEngine(settings), settings)
        elapsed = time.monotonic() - started
    assert 3 <= elapsed < 3 + 0.5 + SLACK_S
    assert run.path == [CLASSIFY, DIRECT_GENERATE]
    assert run.steps[0].status == "ok" and run.steps[0].decision == "direct"
    failed = run.steps[1]
    assert failed.status == "failed" and "DeadlineExceeded" in failed.error
    assert run.stop_reason == "deadline" and "model call" in run.error


def test_a_refused_server_fails_the_run_instead_of_grading_ambiguous(data_dir):
    """Before: exit 0, 'the model output was unusable', grades 'ambiguous 0.50' that looked like measurements."""
    settings = llm_settings(data_dir, refused_base_url(), llm_retries=0)
    for variant in ("agentic", "naive"):
        run = run_question("Who founded Alpha?", tiny_kb(), LLMEngine(settings), settings, variant=variant)
        assert run.error and "could not reach the model server" in run.error, variant
        assert run.stop_reason == "error" and run.steps[-1].status == "failed"
        assert run.steps[-1].model_calls and run.steps[-1].model_calls[0].error
        assert all(d.grade is None for d in run.documents)  # nothing was graded, so nothing says "ambiguous"


# ---- the CLI --------------------------------------------------------------------------------------------------------

def rag_ask(data_dir: Path, base_url: str, *extra: str, **env: str) -> tuple[subprocess.CompletedProcess, float]:
    environ = dict(os.environ, RAG_DATA_DIR=str(data_dir), OPENAI_BASE_URL=base_url, OPENAI_API_KEY="sk-test",
                   RAG_ENGINE="llm", **env)
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "rag", "ask", "Who founded Alpha?", *extra], cwd=REPO,
                         env=environ, capture_output=True, text=True, timeout=300)
    return out, time.monotonic() - started


def test_cli_ask_exits_non_zero_on_a_dead_port_and_within_the_deadline_on_a_hanging_one(data_dir):
    out, _ = rag_ask(data_dir, refused_base_url(), RAG_LLM_RETRIES="0")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "could not reach the model server" in out.stdout and "error:" in out.stdout

    with OpenAIStub(mode="hang") as stub:
        out, _ = rag_ask(data_dir, stub.base_url, "--json", RAG_LLM_TIMEOUT="30", RAG_RUN_DEADLINE="2")
    assert out.returncode == 1, out.stdout + out.stderr
    summary = json.loads(out.stdout)
    assert summary["stop_reason"] == "deadline" and "RAG_RUN_DEADLINE" in summary["error"]
    assert summary["wall_ms"] < (2 + 0.5 + SLACK_S) * 1000
