"""AppTest of the Evaluate page: pick / upload a question set, run it, see metrics, open a row's run."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rag.config import Settings
from rag.runstore import RunStore

REPO = Path(__file__).resolve().parents[2]
EVALUATE = "app_pages/evaluate.py"

DOC = ("# Atlas\n\nAtlas is the search service of Hanbit Labs. Atlas fuses BM25 and dense results with "
       "Reciprocal Rank Fusion using k=60. The Search Platform Team owns Atlas.\n")
QUESTIONS = [
    {"id": "a1", "question": "What value of k does Atlas use for Reciprocal Rank Fusion?", "expected_route": "vector",
     "kind": "covered", "expected": [["60"]], "relevant_sources": ["atlas.md"]},
    {"id": "d1", "question": "128 곱하기 12는 얼마예요?", "expected_route": "direct", "kind": "direct",
     "expected": [["1536"]]},
]


def _jsonl(rows) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")


@pytest.fixture()
def small_kb(data_dir, tmp_path):
    from rag.kb import KnowledgeBase

    src = tmp_path / "atlas.md"
    src.write_text(DOC, encoding="utf-8")
    with KnowledgeBase(Settings.from_env()) as kb:
        [result] = kb.ingest_paths([src])
        assert result.status == "added", result.error
    return data_dir


def _app() -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=300)
    at.run()
    at.switch_page(EVALUATE).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_sample_set_is_preselected_and_empty_kb_is_flagged():
    at = _app()
    assert at.title[0].value.startswith("Evaluate")
    assert at.radio(key="eval_source").value.startswith("Sample questions")
    n = sum(1 for line in (REPO / "sample_docs" / "questions.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip())
    assert any(f"{n} questions" in c.value for c in at.caption)
    assert any("knowledge base is empty" in w.value for w in at.warning)
    from rag.variants import VARIANTS  # every registered variant is preselected (issue 10)

    assert set(at.multiselect(key="eval_variants").value) == set(VARIANTS)
    assert any("Run evaluation" in i.value for i in at.info)


def test_bad_upload_shows_the_bad_lines():
    at = _app()
    at.radio(key="eval_source").set_value("Upload a .jsonl question set").run()
    at.file_uploader(key="eval_upload").set_value(("bad.jsonl", b'{"id": "x"}\nnot json\n', "application/json"))
    at.run()
    assert not at.exception
    assert at.error and "line 1" in at.error[0].value and "line 2" in at.error[0].value
    assert not any(b.key == "eval_run" for b in at.button)  # nothing to run until the set is fixed


def test_upload_run_and_open_a_row_in_the_inspector(small_kb):
    at = _app()
    at.radio(key="eval_source").set_value("Upload a .jsonl question set").run()
    at.file_uploader(key="eval_upload").set_value(("mine.jsonl", _jsonl(QUESTIONS), "application/json"))
    at.run()
    assert not at.exception and not at.warning  # the knowledge base has a document
    at.multiselect(key="eval_variants").set_value(["naive", "agentic"]).run()
    at.button(key="eval_run").click().run()
    assert not at.exception, [e.value for e in at.exception]

    report = at.session_state["eval_report"]
    assert set(report["variants"]) == {"naive", "agentic"} and len(report["questions"]) == 4
    metrics = at.dataframe[0].value
    assert list(metrics.columns) == ["metric", "naive", "agentic"]
    routing = metrics.set_index("metric").loc["routing accuracy"]
    assert routing["agentic"] == report["variants"]["agentic"]["routing_accuracy"]
    assert routing["naive"] == pytest.approx(0.5)  # naive always retrieves: right for a1, wrong for d1
    confusion = at.dataframe[1].value  # naive: expected × chosen
    assert confusion.loc["direct", "vector"] == 1
    per_question = at.dataframe[-1].value
    assert len(per_question) == 4 and set(per_question["id"]) == {"a1", "d1"}
    store = RunStore(small_kb)
    assert all(store.get(rid) is not None for rid in per_question["run_id"])  # every row's run is stored
    assert {d.label for d in at.get("download_button")} == {"report.json", "metrics.csv", "questions.csv"}
    # the agent's quality scores against outcomes: a1 is covered, so its agentic run is charted (naive has none)
    from rag.eval.tables import quality_rows

    charted = quality_rows(report)
    assert [r["variant"] for r in charted] == ["agentic"] and charted[0]["id"] == "a1"
    assert any(h.value.startswith("Does the quality score know") for h in at.subheader)

    wanted = per_question["run_id"].iloc[-1]
    at.selectbox(key="eval_pick").set_value(wanted).run()
    at.button(key="eval_open").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["inspect_run_id"] == wanted
    assert at.title[0].value.startswith("Trace inspector")  # switched to the inspector on that run
