"""Ask page compare view (AppTest): one question through three variants side by side — each column draws its own
path diagram from the variant's compiled graph, its metrics, F-labels, answer and citations; the inspector shows the
F-labels of a run; Evaluate lists every registered variant with the seed-001-style family table."""
from __future__ import annotations

import pytest

from rag.runstore import RunStore
from rag_ui import diagram, resources
from rag_ui.state import INSPECT_RUN_ID, QUESTION
from tests.support.kb import SAMPLE_DOCS, build_kb
from tests.ui.conftest import texts

pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
QUESTION_TEXT = "연봉 계약은 매년 몇 월에 갱신해?"
CHOSEN = ["naive", "crag", "tool_agent"]


@pytest.fixture
def hr_kb(data_dir):
    build_kb(data_dir, {"hr_compensation.txt": (SAMPLE_DOCS / "hr_compensation.txt").read_text(encoding="utf-8")}
             ).close()
    return data_dir


def test_compare_three_variants_side_by_side(open_app, hr_kb):
    at = open_app("app_pages/ask.py", **{QUESTION: QUESTION_TEXT, "compare_variants": CHOSEN})
    at.button(key="compare_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    ids = at.session_state["compare_result"]
    assert len(ids) == 3
    store = RunStore(hr_kb)
    runs = [store.get(i) for i in ids]
    assert [r.variant for r in runs] == CHOSEN and all(r.question == QUESTION_TEXT for r in runs)
    specs = [e.proto.spec for e in at.get("graphviz_chart")]
    for run in runs:  # each column draws its own variant's graph with the path taken
        assert diagram.agent_dot(run) in specs
    assert any("refine_knowledge" in s for s in specs) and any("ToolNode" in s for s in specs)
    page = texts(at)
    assert page.count("Failure labels") >= 3 and "Naive RAG" in page and "CRAG (corrective)" in page
    lines = [m.value for m in at.markdown if m.value.startswith(("● **F", "○ **F"))]
    assert any(line.startswith("○ **F1**") and "unchecked" in line for line in lines)  # naive never grades
    assert any("graded only as one bundle" in line for line in lines)  # tool_agent's single grade (seed 001)
    assert sum(1 for m in at.metric if m.label == "model calls") >= 3
    assert "3월" in page


def test_inspector_shows_the_failure_labels(open_app, hr_kb):
    from rag.variants import run_question

    s = resources.settings()
    run = run_question(QUESTION_TEXT, kb=resources.knowledge_base(s), engine=resources.engine(s), settings=s,
                       variant="naive", store=resources.run_store(s))
    at = open_app("app_pages/inspector.py", **{INSPECT_RUN_ID: run.run_id})
    [frame] = [d.value for d in at.dataframe if "why" in d.value.columns]
    assert {"F1", "F7"} <= {label.split()[-1] for label in frame["label"]}
    assert "Failure labels" in texts(at)


def test_evaluate_offers_every_variant(open_app, hr_kb):
    at = open_app("app_pages/evaluate.py")
    assert set(at.multiselect(key="eval_variants").value) == set(resources.variant_names())
    assert {"tool_agent", "self_rag", "crag", "adaptive"} <= set(resources.variant_names())
