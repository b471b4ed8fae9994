"""The peer suite (llm-in-action 08): conversion to documents + question set, and an offline end-to-end run."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.eval.peer import PeerSuiteError, load_peer_suite, write_peer_suite
from rag.eval.questions import load_questions
from tests.support.prereq import needs

REPO = Path(__file__).resolve().parents[1]
PEER = REPO.parent / "shared" / "peer-suites" / "llm-in-action-08"
needs_peer = needs(PEER.is_dir(), f"the peer suite {PEER}", "it lives in ../shared/peer-suites beside the repo")


def _suite(tmp_path: Path, kb, testset) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "knowledge_base.json").write_text(json.dumps(kb, ensure_ascii=False), encoding="utf-8")
    (folder / "manual_testset.json").write_text(json.dumps(testset, ensure_ascii=False), encoding="utf-8")
    return folder


def test_convert_small_suite_round_trips(tmp_path):
    folder = _suite(tmp_path,
                    [{"id": "doc-1", "title": "RRF", "content": "RRF 的公式为 score = sum(1 / (k + rank))。"},
                     {"id": "doc-2", "title": "", "content": "HyDE 先生成假设答案。"}],
                    [{"question": "RRF 公式?", "ground_truth": "sum(1/(k+rank))", "relevant_doc_ids": ["doc-1"]},
                     {"question": "HyDE?", "relevant_doc_ids": ["doc-2", "doc-1"]}])
    suite = load_peer_suite(folder)
    assert [d.file_name for d in suite.documents] == ["doc-1.md", "doc-2.md"]
    q1, q2 = suite.questions.questions
    assert q1.id == "suite-q01" and q1.kind == "covered" and q1.relevant_sources == ["doc-1.md"]
    assert q1.reference == "sum(1/(k+rank))" and q1.expected == [] and q1.expected_route is None
    assert q2.reference is None and q2.relevant_sources == ["doc-2.md", "doc-1.md"]

    docs_dir, jsonl = write_peer_suite(suite, tmp_path / "out")
    assert (docs_dir / "doc-1.md").read_text(encoding="utf-8").startswith("# RRF\n\nRRF 的公式")
    assert (docs_dir / "doc-2.md").read_text(encoding="utf-8") == "HyDE 先生成假设答案。\n"
    assert load_questions(jsonl).questions == suite.questions.questions


@pytest.mark.parametrize("kb, testset, message", [
    ([{"id": "../evil", "content": "x"}], [], "'id' must be a short name"),
    ([{"id": "d", "content": ""}], [], "'content' is missing"),
    ([{"id": "d", "content": "x"}, {"id": "d", "content": "y"}], [], "duplicate id"),
    ([{"id": "d", "content": "x"}], [{"question": "q", "relevant_doc_ids": ["nope"]}], "not in knowledge_base.json"),
    ([{"id": "d", "content": "x"}], [{"question": " "}], "non-empty 'question'"),
    ([{"id": "d", "content": "x"}], {"question": "q"}, "expected a JSON list"),
])
def test_bad_suites_are_refused_with_the_reason(tmp_path, kb, testset, message):
    with pytest.raises(PeerSuiteError, match=message):
        load_peer_suite(_suite(tmp_path, kb, testset))


def test_missing_folder_or_file(tmp_path):
    with pytest.raises(PeerSuiteError, match="folder not found"):
        load_peer_suite(tmp_path / "nowhere")
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "knowledge_base.json").write_text("[]")
    with pytest.raises(PeerSuiteError, match="no documents|not found"):
        load_peer_suite(tmp_path / "half")


@needs_peer
def test_real_peer_suite_converts():
    suite = load_peer_suite(PEER)
    assert len(suite.documents) == 8 and len(suite.questions) == 8
    assert all(q.reference and q.relevant_sources for q in suite.questions)
    ids = {d.file_name for d in suite.documents}
    assert all(set(q.relevant_sources) <= ids for q in suite.questions)


@needs_peer
@pytest.mark.slow
@pytest.mark.integration
def test_peer_suite_end_to_end_offline(tmp_path):
    """Ingest the suite's 8 Chinese documents into their own data dir and evaluate its 8 questions, offline."""
    import io

    from rag.eval.cli import cli_main
    from rag.runstore import RunStore

    out, err = io.StringIO(), io.StringIO()
    code = cli_main(["--peer-suite", str(PEER), "--variants", "naive,agentic", "--json",
                     "--data-dir", str(tmp_path / "peer")], out=out, err=err)
    assert code == 0, err.getvalue()
    assert "ingested 8 file(s)" in err.getvalue()
    report = json.loads(out.getvalue())
    assert report["n_questions"] == 8 and report["kb_counts"]["documents"] == 8
    for name in ("naive", "agentic"):
        m = report["variants"][name]
        assert m["n_errors"] == 0
        # the suite has no routes, key facts or uncovered questions: those metrics do not apply
        for key in ("routing_accuracy", "key_fact_hit_rate", "abstention_rate", "silent_failure_rate"):
            assert m[key] is None, key
        # it has relevant doc ids and references: ID-based context metrics and non-LLM RAGAS-style ones apply
        for key in ("context_precision", "context_recall", "answer_similarity", "reference_context_recall"):
            assert m[key] is not None and 0.0 <= m[key] <= 1.0, key
    # the offline retriever finds the relevant document of every question (8 one-chunk documents, top-4)
    assert report["variants"]["naive"]["context_recall_retrieved"] == 1.0
    store = RunStore(tmp_path / "peer")
    assert all(store.get(r["run_id"]) is not None for r in report["questions"])
