"""`python -m rag`: the JSON contract of `ask --json` (a real subprocess), runs list/show, and plain user errors."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rag.cli import main

REPO = Path(__file__).resolve().parents[1]
REQUIRED_KEYS = {"route", "path", "attempts", "quality_scores", "documents", "answer", "citations", "abstained",
                 "llm_calls", "wall_ms", "run_id"}
DOCS = {
    "hr_leave.md": "# Annual leave\nEmployees get 15 days of annual leave after one year of service. "
                   "Leave requests go to the People Team.",
    "teams.md": "# Teams\nThe Search Platform Team owns Atlas. Seoyeon Kim leads the Search Platform Team.",
    "broken.pdf": "this is not a PDF at all",
}


def rag(*args: str, env_data_dir: Path | None = None, timeout: int = 240) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "RAG_DATA_DIR"}
    if env_data_dir is not None:
        env["RAG_DATA_DIR"] = str(env_data_dir)
    return subprocess.run([sys.executable, "-m", "rag", *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def cli_data(tmp_path_factory):
    """A data directory filled by `python -m rag ingest FOLDER` (two good files, one broken)."""
    root = tmp_path_factory.mktemp("cli")
    folder = root / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    data = root / "data"
    result = rag("ingest", str(folder), "--data-dir", str(data))
    return data, result


def test_ingest_prints_one_line_per_file_and_fails_when_one_file_failed(cli_data):
    data, result = cli_data
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("added") and "hr_leave.md" in line for line in lines)
    assert any(line.startswith("added") and "teams.md" in line for line in lines)
    assert any(line.startswith("error") and "broken.pdf" in line for line in lines)
    assert "2 of 3 file(s) ingested" in result.stdout
    assert "Traceback" not in result.stderr


def test_ask_json_is_exactly_one_object_with_the_contract(cli_data):
    data, _ = cli_data
    result = rag("ask", "How many days of annual leave do employees get after one year?", "--json",
                 "--data-dir", str(data))
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)  # the whole stdout, nothing else on it
    assert REQUIRED_KEYS <= set(out)
    assert out["route"] in ("vector", "graph", "web", "direct")
    assert out["path"][0] == "classify" and isinstance(out["attempts"], int)
    assert len(out["quality_scores"]) == out["attempts"] >= 1
    assert out["documents"] and all({"source", "score", "grade"} <= set(d) for d in out["documents"])
    assert {d["grade"] for d in out["documents"]} <= {"correct", "ambiguous", "incorrect"}
    assert out["citations"] and all("source" in c for c in out["citations"])
    assert "hr_leave.md" in {c["source"] for c in out["citations"]}
    assert out["abstained"] is False and isinstance(out["llm_calls"], int) and out["wall_ms"] > 0
    assert out["stop_reason"] == "quality_met"


def test_ask_naive_json_with_data_dir_from_the_environment(cli_data):
    data, _ = cli_data
    result = rag("ask", "Who leads the Search Platform Team?", "--variant", "naive", "--json", "--top-k", "1",
                 env_data_dir=data)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["variant"] == "naive" and out["route"] == "vector"
    assert out["path"] == ["retrieve_vector", "generate"]
    assert len(out["documents"]) == 1 and out["documents"][0]["grade"] is None
    assert out["attempts"] == 0 and out["quality_scores"] == []


def test_runs_list_and_show(cli_data, capfd):
    data, _ = cli_data
    assert main(["runs", "list", "--json", "--data-dir", str(data)]) == 0
    rows = json.loads(capfd.readouterr().out)
    assert len(rows) >= 2 and {"run_id", "question", "variant", "route", "stop_reason"} <= set(rows[0])
    run_id = next(r["run_id"] for r in rows if r["variant"] == "agentic")

    assert main(["--data-dir", str(data), "runs", "show", run_id, "--json"]) == 0
    trace = json.loads(capfd.readouterr().out)
    assert trace["run_id"] == run_id and trace["steps"][0]["node"] == "classify"
    assert trace["totals"]["attempts"] == len(trace["attempts"])

    assert main(["runs", "show", run_id[:6], "--data-dir", str(data)]) == 0
    text = capfd.readouterr().out
    assert "classify" in text and "evaluate_context" in text and run_id in text

    assert main(["runs", "list", "--data-dir", str(data)]) == 0
    assert run_id in capfd.readouterr().out


def test_docs_lists_the_ingested_documents(cli_data, capfd):
    data, _ = cli_data
    assert main(["docs", "--data-dir", str(data)]) == 0
    out = capfd.readouterr().out
    assert "hr_leave.md" in out and "teams.md" in out and "broken.pdf" not in out


# ---- user errors: one plain line, an exit code, no traceback -------------------------------------------------

@pytest.mark.parametrize("argv, code, message", [
    (["ingest", "no/such/file.md"], 2, "no such file or folder"),
    (["runs", "show", "doesnotexist"], 1, "no run with id"),
    (["runs"], 2, "runs list"),
    (["reset"], 2, "add --yes"),
    (["ask", "hello", "--threshold", "1.5"], 2, "threshold must be between 0 and 1"),
    (["ask", "hello", "--max-attempts", "0"], 2, "max_attempts must be at least 1"),
    (["delete", "0000000000"], 1, "no document with id"),
    (["runs", "delete", "doesnotexist"], 1, "no run with id"),
])
def test_user_errors_are_plain_messages(argv, code, message, capfd):
    assert main(argv) == code
    captured = capfd.readouterr()
    assert message in captured.err
    assert "Traceback" not in captured.err and captured.out == ""


def test_no_command_prints_help_and_exits_2(capfd):
    assert main([]) == 2
    assert "ingest" in capfd.readouterr().err


def test_reset_with_yes_empties_the_knowledge_base(tmp_path, capfd):
    data = tmp_path / "other"
    assert main(["reset", "--yes", "--data-dir", str(data)]) == 0
    assert "is empty now" in capfd.readouterr().out
    assert main(["docs", "--data-dir", str(data)]) == 0
    assert "The knowledge base is empty" in capfd.readouterr().out


def test_neo4j_subcommand_is_delegated_with_the_data_dir(tmp_path, capfd):
    data = tmp_path / "neo"
    code = main(["--data-dir", str(data), "neo4j", "status"])
    captured = capfd.readouterr()
    assert code != 0 and "not running" in captured.out
    assert str(data.resolve() / "neo4j-local") in captured.out


def test_eval_subcommand_is_delegated(tmp_path, capfd):
    code = main(["eval", str(tmp_path / "missing.jsonl"), "--data-dir", str(tmp_path / "d")])
    captured = capfd.readouterr()
    assert code == 2 and "missing.jsonl" in captured.err and "Traceback" not in captured.err
