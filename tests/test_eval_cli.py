"""`python -m rag eval` on a real knowledge base (sample documents in Chroma + the embedded graph, offline engine)."""
from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rag.config import Settings
from rag.eval.cli import cli_main
from rag.runstore import RunStore

REPO = Path(__file__).resolve().parents[1]
SAMPLE_QUESTIONS = REPO / "sample_docs" / "questions.jsonl"
# A small slice of the sample set, one question per kind, so the test stays quick on a laptop.
SLICE_IDS = ("vec-03", "trap-03", "direct-03", "graph-04")

pytestmark = pytest.mark.integration


@pytest.fixture(scope="session")
def sample_kb_dir(tmp_path_factory) -> Path:
    """A data directory with the sample documents ingested once for the whole session."""
    from rag.kb import KnowledgeBase

    path = tmp_path_factory.mktemp("eval-kb")
    kb = KnowledgeBase(Settings.from_env(data_dir_override=path))
    try:
        results = kb.ingest_paths([REPO / "sample_docs"])
        assert results and all(r.status != "error" for r in results), [(r.source, r.error) for r in results]
    finally:
        kb.close()
    return path


@pytest.fixture()
def kb_dir(sample_kb_dir, tmp_path) -> Path:
    """A private copy, so runs stored by one test do not show up in another."""
    copy = tmp_path / "kb"
    shutil.copytree(sample_kb_dir, copy)
    return copy


@pytest.fixture()
def slice_file(tmp_path) -> Path:
    lines = [line for line in SAMPLE_QUESTIONS.read_text(encoding="utf-8").splitlines()
             if line.strip() and json.loads(line)["id"] in SLICE_IDS]
    assert len(lines) == len(SLICE_IDS)
    path = tmp_path / "slice.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli_main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_json_contract_and_every_run_is_stored(kb_dir, slice_file, tmp_path):
    code, out, err = _cli(str(slice_file), "--variants", "naive,agentic", "--json", "--data-dir", str(kb_dir),
                          "--out", str(tmp_path / "report"))
    assert code == 0, err
    report = json.loads(out)  # exactly one JSON object on stdout
    assert set(report["variants"]) == {"naive", "agentic"}
    for metrics in report["variants"].values():
        for key in ("routing_accuracy", "key_fact_hit_rate", "abstention_rate", "silent_failure_rate",
                    "context_precision", "context_recall", "llm_calls_mean", "wall_ms_mean", "wall_ms_p95"):
            assert key in metrics, key
        assert metrics["n_questions"] == len(SLICE_IDS) and metrics["n_errors"] == 0
        assert metrics["wall_ms_mean"] > 0 and metrics["wall_ms_p95"] >= metrics["wall_ms_mean"] * 0.5
    rows = report["questions"]
    assert len(rows) == 2 * len(SLICE_IDS)
    assert {r["id"] for r in rows} == set(SLICE_IDS)
    store = RunStore(kb_dir)
    for r in rows:
        for key in ("id", "variant", "route", "abstained", "hit", "run_id"):
            assert key in r, key
        run = store.get(r["run_id"])  # each row links to a stored trace of that very question
        assert run is not None and run.variant == r["variant"] and run.route == r["route"]
    naive = {r["id"]: r for r in rows if r["variant"] == "naive"}
    agentic = {r["id"]: r for r in rows if r["variant"] == "agentic"}
    assert all(r["route"] == "vector" for r in naive.values())  # naive never routes
    assert agentic["direct-03"]["route"] == "direct" and agentic["direct-03"]["n_retrieved"] == 0
    assert naive["direct-03"]["n_retrieved"] > 0
    assert agentic["direct-03"]["hit"] is True  # 128 × 12 = 1536, answered directly
    assert naive["trap-03"]["silent_failure"] is True  # naive answers the uncovered price question anyway
    assert naive["trap-03"]["context_precision"] is None  # decoy sources are not scored as evidence

    files = {p.name for p in (tmp_path / "report").iterdir()}
    assert files == {"report.json", "metrics.csv", "questions.csv"}
    with open(tmp_path / "report" / "questions.csv", encoding="utf-8") as fh:
        csv_rows = list(csv.DictReader(fh))
    assert [row["run_id"] for row in csv_rows] == [r["run_id"] for r in rows]
    assert json.loads((tmp_path / "report" / "report.json").read_text(encoding="utf-8"))["questions"] == rows


def test_table_output(kb_dir, tmp_path):
    qs = tmp_path / "one.jsonl"
    qs.write_text(json.dumps({"id": "d1", "question": "128 곱하기 12는 얼마예요?", "expected_route": "direct",
                              "kind": "direct", "expected": [["1536"]]}, ensure_ascii=False) + "\n", encoding="utf-8")
    code, out, err = _cli(str(qs), "--variants", "agentic", "--data-dir", str(kb_dir))
    assert code == 0, err
    assert "routing accuracy" in out and "silent-failure rate" in out and "agentic" in out
    assert "d1" in out and "direct" in out
    run_id = out.strip().splitlines()[-3].split()[-1]  # last row of the per-question table ends with the run id
    assert RunStore(kb_dir).get(run_id) is not None


@pytest.mark.parametrize("argv, message", [
    (["missing.jsonl"], "question set not found"),
    (["{bad}", "--variants", "naive,telepathy"], "unknown variant"),
    ([], "pass a question set"),
    (["{bad}", "--threshold", "2"], "threshold must be between 0 and 1"),
])
def test_errors_exit_2_with_a_plain_message(tmp_path, argv, message):
    good = tmp_path / "q.jsonl"
    good.write_text('{"id": "a", "question": "2+2?"}\n', encoding="utf-8")
    argv = [str(good) if a == "{bad}" else a for a in argv]
    code, out, err = _cli(*argv, "--data-dir", str(tmp_path / "d"))
    assert code == 2 and message in err and out == ""


def test_ragas_says_what_is_missing_before_running(tmp_path, monkeypatch):
    good = tmp_path / "q.jsonl"
    good.write_text('{"id": "a", "question": "2+2?"}\n', encoding="utf-8")
    code, out, err = _cli(str(good), "--ragas", "--data-dir", str(tmp_path / "d"))
    assert code == 2 and "need an LLM" in err and out == ""  # offline: no judge model
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # an LLM is configured (never reached)
    try:
        import ragas  # noqa: F401
    except ImportError:
        code, out, err = _cli(str(good), "--ragas", "--data-dir", str(tmp_path / "d"))
        assert code == 2 and "pip install ragas" in err and out == ""
    assert not RunStore(tmp_path / "d").list()  # nothing was run


def test_bad_question_file_lists_the_lines(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "question": "ok"}\n{"id": "a", "question": "dup"}\nnope\n', encoding="utf-8")
    code, _, err = _cli(str(bad), "--data-dir", str(tmp_path / "d"))
    assert code == 2 and "line 2" in err and "line 3" in err


def test_convert_peer_subcommand(tmp_path):
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "knowledge_base.json").write_text('[{"id": "doc-1", "title": "T", "content": "RRF k=60"}]')
    (folder / "manual_testset.json").write_text('[{"question": "k?", "ground_truth": "60", "relevant_doc_ids": ["doc-1"]}]')
    code, out, _ = _cli("convert-peer", str(folder), "--out", str(tmp_path / "out"))
    assert code == 0 and "1 documents" in out
    assert (tmp_path / "out" / "docs" / "doc-1.md").exists()
    assert json.loads((tmp_path / "out" / "questions.jsonl").read_text())["relevant_sources"] == ["doc-1.md"]


def test_python_m_rag_eval_dispatches_here(tmp_path):
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "knowledge_base.json").write_text('[{"id": "d", "content": "x"}]')
    (folder / "manual_testset.json").write_text('[{"question": "q", "relevant_doc_ids": ["d"]}]')
    proc = subprocess.run([sys.executable, "-m", "rag", "eval", "convert-peer", str(folder), "--out",
                           str(tmp_path / "o")], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "o" / "questions.jsonl").exists()
