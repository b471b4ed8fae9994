"""Trace inspector (AppTest): list and filter runs, step through one on the diagram, export, compare."""
from __future__ import annotations

import json

import pytest

from rag.variants import run_question
from rag_ui import diagram, resources, widgets
from rag_ui.state import COMPARE_RUN_ID, INSPECT_RUN_ID
from tests.ui.conftest import texts


@pytest.fixture
def two_runs(samples):
    s = resources.settings()
    kw = dict(kb=resources.knowledge_base(s), engine=resources.engine(s), settings=s, store=resources.run_store(s))
    questions = [q["question"] for q in resources.sample_questions()]
    return (run_question(questions[0], variant="agentic", **kw), run_question(questions[1], variant="naive", **kw))


def test_empty_inspector_says_what_to_do(open_app):
    at = open_app("app_pages/inspector.py")
    assert "No runs yet" in texts(at)


def test_step_slider_moves_the_highlight(open_app, two_runs):
    run, _ = two_runs
    at = open_app("app_pages/inspector.py", **{INSPECT_RUN_ID: run.run_id})
    assert at.selectbox(key="inspector_pick").value == run.run_id
    slider = at.slider(key=f"step_{run.run_id}")
    assert slider.value == len(run.steps) and slider.max == len(run.steps)
    slider.set_value(1).run()
    assert not at.exception
    assert f"Step 1 of {len(run.steps)}: `classify`" in texts(at)
    spec = at.get("graphviz_chart")[0].proto.spec
    assert spec == diagram.agent_dot(run, upto=0)
    assert diagram.FILL_CURRENT in spec
    # the step's own record: decision, reason, model calls / prompts
    assert run.steps[0].reason in texts(at)
    assert f"**node** `classify` · **decision** `{run.steps[0].decision}`" in texts(at)
    slider.set_value(len(run.steps)).run()
    assert at.get("graphviz_chart")[0].proto.spec == diagram.agent_dot(run, upto=len(run.steps) - 1)


def test_export_search_query_param_and_compare(open_app, two_runs):
    agentic, naive = two_runs
    at = open_app("app_pages/inspector.py", query={"run": naive.run_id})
    assert at.selectbox(key="inspector_pick").value == naive.run_id
    assert [b.proto.label for b in at.get("download_button")] == [
        "Export this run as JSON", "Download a handout (HTML) · 유인물",
        "Download the comparison as a handout (HTML) · 비교 유인물"]
    assert json.loads(widgets.run_json(naive)) == json.loads(resources.run_store().export_json(naive.run_id))

    # filter by text: only matching runs are listed (and the run that is open, which stays visible)
    term = agentic.question[:12]
    at.text_input(key="inspector_search").input(term).run()
    listed = set(at.dataframe[0].value["run id"])
    matching = {r["run_id"] for r in resources.run_store().list(search=term)}
    assert agentic.run_id in listed and listed <= matching | {naive.run_id}
    assert naive.run_id not in matching

    # compare two runs side by side
    at.text_input(key="inspector_search").input("").run()
    at.selectbox(key="inspector_pick").select(agentic.run_id).run()
    at.selectbox(key=COMPARE_RUN_ID).select(naive.run_id).run()
    assert not at.exception
    shown = texts(at)
    assert f"`{agentic.run_id}`" in shown and f"`{naive.run_id}`" in shown
    assert len(at.get("graphviz_chart")) == 3  # the stepped one and the two compared


def test_a_citation_read_as_context_next_to_a_graded_chunk_says_so(open_app):
    """Issue 8 (small-to-big): a chunk the answer read as context next to a usable chunk is cited like any other,
    and its citation says which chunk it neighbours and that it was not graded (the answer step's ungraded record)."""
    from dataclasses import replace

    from rag.trace import DocRecord
    from rag.types import Citation
    from tests.ui.runs import rerouted_run

    run = rerouted_run()
    last = run.steps[-1]
    neighbour = DocRecord(id="d2:4", source="people_directory.md", text="Atlas was built in 2024.", score=0.0,
                          tool="vector", doc_id="d2", chunk_index=4, attempt=2, metadata={"neighbour_of": "d2:3"},
                          grade_reason="not graded: the chunk next to people_directory.md #3 (graded ambiguous)")
    run.steps[-1] = replace(last, inputs={"doc_ids": ["d2:3", "d2:4"], "context_neighbours": {"d2:4": "d2:3"}},
                            documents=[neighbour])
    run.citations = [Citation(id="d2:3", source="people_directory.md", text="김민준 leads Atlas.", doc_id="d2",
                              chunk_index=3),
                     Citation(id="d2:4", source="people_directory.md", text="Atlas was built in 2024.", doc_id="d2",
                              chunk_index=4)]
    run_id = resources.run_store().save(run)
    at = open_app("app_pages/inspector.py", **{INSPECT_RUN_ID: run_id})
    shown = texts(at)
    assert "Read as context next to d2:3, not graded" in shown
    assert shown.count("Read as context next to") == 1  # the graded chunk's own citation says nothing of the kind
