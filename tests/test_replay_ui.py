"""What-if replay in the trace inspector (AppTest): pick the grading step, flip a grade, continue; the fork opens with
its parent beside it and the edited step marked on both diagrams."""
from __future__ import annotations

import pytest

from rag.engines import get_engine
from rag.runstore import RunStore
from rag.variants import run_question
from rag_ui import replay as whatif
from rag_ui import widgets
from rag_ui.state import INSPECT_RUN_ID
from tests.support.kb import build_kb
from tests.test_replay import CORPUS, QUESTION
from tests.ui.conftest import open_app, texts  # noqa: F401  (open_app is a fixture)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    kb = build_kb(tmp_path_factory.mktemp("replay-ui") / "data", CORPUS)
    run = run_question(QUESTION, kb=kb, engine=get_engine(kb.settings), settings=kb.settings, variant="agentic",
                       store=RunStore(kb.settings.data_dir))
    kb.close()
    return kb.settings.data_dir, run


def test_fork_from_the_inspector(recorded, open_app, monkeypatch):
    data_dir, run = recorded
    monkeypatch.setenv("RAG_DATA_DIR", str(data_dir))
    grade = next(s for s in run.steps if s.node == "grade_documents")
    index = next(i for i, d in enumerate(grade.documents) if d.grade == "correct")
    at = open_app("app_pages/inspector.py", **{INSPECT_RUN_ID: run.run_id})
    at.slider(key=f"step_{run.run_id}").set_value(grade.index + 1).run()
    key = f"whatif_{run.run_id}_{grade.index}"
    at.selectbox(key=f"{key}_doc").set_value(index).run()
    at.selectbox(key=f"{key}_grade_{index}").set_value("incorrect").run()
    at.button(key=f"whatif_go_{run.run_id}_{grade.index}").click().run()
    assert not at.exception, [e.value for e in at.exception]

    fork_id = at.session_state[INSPECT_RUN_ID]
    assert fork_id != run.run_id
    fork = RunStore(data_dir).get(fork_id)
    assert fork.replay["parent_run_id"] == run.run_id and fork.path != run.path
    assert widgets.md_escape(f"grade[{index}] = incorrect") in texts(at) and "What-if fork" in texts(at)
    specs = [c.proto.spec for c in at.get("graphviz_chart")]
    assert whatif.marked_dot(run, grade.index) in specs and whatif.marked_dot(fork, grade.index) in specs
    assert all(whatif.FILL_EDITED in spec for spec in specs[:2])


def test_edit_choices_follow_the_step(recorded):
    _, run = recorded
    by_node = {s.node: whatif.edit_choices(s) for s in run.steps}
    assert by_node["classify"] == ["route", "query"]
    assert by_node["grade_documents"] == ["grade"]
    assert by_node["evaluate_context"] == ["quality", "threshold"]
    assert by_node["generate"] == []
