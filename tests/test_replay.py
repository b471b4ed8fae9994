"""What-if replay: a recorded agentic run forked at grade_documents with one grade flipped (real KB, offline engine,
real SQLite checkpointer and run store)."""
from __future__ import annotations

import json
import sqlite3

import pytest

from rag.cli import main as cli_main
from rag.engines import get_engine
from rag.replay import Edit, fork_run
from rag.runstore import RunStore
from rag.types import RagError
from rag.variants import run_question
from rag.variants.base import CHECKPOINTS_DB
from tests.support.kb import build_kb

CORPUS = {
    "leave.md": "# Leave policy\n\nEmployees get 15 days of annual leave after one year of service.\n\n"
                "# Payday\n\nSalaries are paid on the 25th of every month.",
    "cafeteria.md": "# Cafeteria\n\nThe cafeteria opens at 8 am and serves lunch until 2 pm.",
}
QUESTION = "How many days of annual leave do employees get?"


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    kb = build_kb(tmp_path_factory.mktemp("replay-kb"), CORPUS)
    yield kb
    kb.close()


@pytest.fixture(scope="module")
def recorded(kb):
    """One agentic run, recorded with its checkpoints, and the store it is in."""
    store = RunStore(kb.settings.data_dir)
    run = run_question(QUESTION, kb=kb, engine=get_engine(kb.settings), settings=kb.settings, variant="agentic",
                       store=store)
    return store, run


def _grade_step(run):
    return next(s for s in run.steps if s.node == "grade_documents")


def test_every_graph_run_is_checkpointed_with_its_run_id_as_thread(recorded, kb):
    store, run = recorded
    assert run.replay["thread_id"] == run.run_id and run.replay["checkpoint_id"]
    with sqlite3.connect(kb.settings.data_dir / CHECKPOINTS_DB) as db:
        threads = {row[0] for row in db.execute("SELECT DISTINCT thread_id FROM checkpoints")}
    assert run.run_id in threads
    assert store.get(run.run_id).replay == run.replay


def test_fork_at_grade_documents_with_one_grade_flipped(recorded, kb):
    store, parent = recorded
    before = store.export_json(parent.run_id)
    step = _grade_step(parent)
    assert parent.path[-1] == "generate", parent.path  # the recorded run found its answer
    index = next(i for i, d in enumerate(step.documents) if d.grade == "correct")

    fork = fork_run(store, parent.run_id, step.index, f"grade[{index}]=incorrect", kb=kb,
                    engine=get_engine(kb.settings), settings=kb.settings)

    # the fork takes a different path: without its one correct document the context is too weak
    assert fork.path[: step.index + 1] == parent.path[: step.index + 1]
    assert fork.path != parent.path
    evaluate = fork.steps[step.index + 1]
    assert evaluate.node == "evaluate_context" and evaluate.decision != "generate"
    edited = fork.steps[step.index]
    assert edited.documents[index].grade == "incorrect" and edited.output["what_if"]["was"] == "correct"
    assert edited.output["incorrect"] == step.output["incorrect"] + 1
    # the parent is unchanged, in the store and in its checkpoints
    assert store.export_json(parent.run_id) == before
    assert store.get(parent.run_id).path == parent.path
    # both are in the store, linked by the parent's id and the edit
    saved = store.get(fork.run_id)
    assert saved is not None and saved.path == fork.path
    assert saved.replay["parent_run_id"] == parent.run_id and saved.replay["step"] == step.index
    assert saved.replay["edit"]["text"] == f"grade[{index}] = incorrect"
    [link] = store.forks(parent.run_id)
    assert link["run_id"] == fork.run_id and link["fork_edit"] == f"grade[{index}] = incorrect"
    assert fork.replay["thread_id"] == parent.run_id and fork.replay["checkpoint_id"] != parent.replay["checkpoint_id"]

    # forking the parent again at the same step with the recorded grade restored takes the parent's path
    # (the checkpoint the fork wrote did not disturb the parent's)
    again = fork_run(store, parent.run_id, step.index, f"grade[{index}]=correct", kb=kb,
                     engine=get_engine(kb.settings), settings=kb.settings)
    assert again.path == parent.path


def test_fork_of_quality_and_route(recorded, kb):
    store, parent = recorded
    evaluate = next(s for s in parent.steps if s.node == "evaluate_context")
    low = fork_run(store, parent, evaluate.index, "quality=0.05", kb=kb, engine=get_engine(kb.settings),
                   settings=kb.settings)
    assert low.steps[evaluate.index].decision == "re_route" and low.path[evaluate.index + 1] == "re_route"
    routed = fork_run(store, parent, 0, "route=graph", kb=kb, engine=get_engine(kb.settings), settings=kb.settings)
    assert routed.route == "graph" and routed.path[1] == "retrieve_graph"


def test_bad_edits_say_what_to_do(recorded, kb):
    store, parent = recorded
    engine = get_engine(kb.settings)
    with pytest.raises(RagError, match="grade\\[I\\]"):
        Edit.parse("grade=correct")
    with pytest.raises(RagError, match="out of range"):
        fork_run(store, parent, _grade_step(parent).index, "grade[99]=correct", kb=kb, engine=engine,
                 settings=kb.settings)
    with pytest.raises(RagError, match="no grade to edit|graded no documents|records no"):
        fork_run(store, parent, 0, "grade[0]=correct", kb=kb, engine=engine, settings=kb.settings)
    with pytest.raises(RagError, match="no step 99"):
        fork_run(store, parent, 99, "quality=0.5", kb=kb, engine=engine, settings=kb.settings)


def test_cli_fork_json(recorded, kb, monkeypatch, capfd):
    store, parent = recorded
    monkeypatch.setenv("RAG_DATA_DIR", str(kb.settings.data_dir))
    step = _grade_step(parent)
    code = cli_main(["runs", "fork", parent.run_id, "--step", str(step.index), "--set", "grade[0]=ambiguous",
                     "--json"])
    assert code == 0
    data = json.loads(capfd.readouterr().out)
    assert data["fork"]["parent_run_id"] == parent.run_id and data["fork"]["edit"]["value"] == "ambiguous"
    assert store.get(data["run_id"]) is not None


def test_every_graph_variant_forks_through_the_shared_hook(kb):
    """CRAG (another module, built on the same base) is checkpointed and forked the same way: with its one correct
    document graded incorrect it rewrites the query and searches again instead of refining."""
    store = RunStore(kb.settings.data_dir)
    engine = get_engine(kb.settings)
    parent = run_question(QUESTION, kb=kb, engine=engine, settings=kb.settings, variant="crag", store=store)
    assert parent.replay["thread_id"] == parent.run_id
    grade = next(s for s in parent.steps if s.node == "grade_documents")
    index = next(i for i, d in enumerate(grade.documents) if d.grade == "correct")
    fork = fork_run(store, parent, grade.index, f"grade[{index}]=incorrect", kb=kb, engine=engine,
                    settings=kb.settings)
    assert fork.error is None and fork.path != parent.path
    assert "refine_knowledge" in parent.path and fork.path[grade.index + 1] != "refine_knowledge"
    assert store.forks(parent.run_id)[0]["run_id"] == fork.run_id


def test_a_checkpoint_database_that_cannot_open_costs_the_replay_not_the_run(tmp_path):
    kb = build_kb(tmp_path / "data", {"leave.md": CORPUS["leave.md"]})
    (kb.settings.data_dir / CHECKPOINTS_DB).mkdir()  # a folder where the database should be: sqlite cannot open it
    store = RunStore(kb.settings.data_dir)
    try:
        run = run_question(QUESTION, kb=kb, engine=get_engine(kb.settings), settings=kb.settings, store=store)
        assert run.error is None and "15 days" in run.answer and run.replay == {}
        with pytest.raises(RagError, match="no checkpoints to fork from"):
            fork_run(store, run.run_id, 2, "grade[0]=incorrect", kb=kb, engine=get_engine(kb.settings),
                     settings=kb.settings)
    finally:
        kb.close()


def test_fork_of_threshold_and_query(recorded, kb):
    store, parent = recorded
    engine = get_engine(kb.settings)
    evaluate = next(s for s in parent.steps if s.node == "evaluate_context")
    strict = fork_run(store, parent, evaluate.index, "threshold=0.99", kb=kb, engine=engine, settings=kb.settings)
    assert strict.steps[evaluate.index].output["threshold"] == 0.99 and strict.settings["threshold"] == 0.99
    assert strict.steps[evaluate.index].decision == "re_route" and strict.path != parent.path
    other = fork_run(store, parent, 0, "query=When does the cafeteria serve lunch?", kb=kb, engine=engine,
                     settings=kb.settings)
    retrieved = other.steps[1]
    assert retrieved.inputs["query"] == "When does the cafeteria serve lunch?"
    assert retrieved.documents[0].source == "cafeteria.md" != parent.steps[1].documents[0].source


def test_a_fork_keeps_the_parents_context_setting(recorded, kb):
    """A fork reads by-meaning context (Settings.context_in_document) as its parent did; a parent recorded before
    the setting existed read none, so its fork reads none either, whatever the caller's settings say."""
    import dataclasses

    store, parent = recorded
    assert parent.settings["context_in_document"] == 1
    evaluate = next(s for s in parent.steps if s.node == "evaluate_context")
    engine = get_engine(kb.settings)
    same = fork_run(store, parent, evaluate.index, "threshold=0.5", kb=kb, engine=engine, settings=kb.settings)
    assert same.settings["context_in_document"] == 1
    older = dataclasses.replace(parent, settings={k: v for k, v in parent.settings.items()
                                                  if k != "context_in_document"})
    fork = fork_run(store, older, evaluate.index, "threshold=0.5", kb=kb, engine=engine, settings=kb.settings)
    assert kb.settings.context_in_document == 1 and fork.settings["context_in_document"] == 0


def test_a_fork_runs_under_its_own_variants_step_limit():
    """Before: every fork used agentic's recursion_limit (4N+10 for tool_agent instead of its own 4N+1)."""
    from rag.config import Settings
    from rag.replay import step_limit
    from rag.variants import registry
    from rag.variants.agentic import recursion_limit as agentic_limit

    settings = Settings.from_env(max_attempts=3)
    assert step_limit("tool_agent", settings) == 4 * 3 + 1 != agentic_limit(3)
    for name in registry.variant_names():
        assert step_limit(name, settings) == registry.variant_class(name).step_limit(settings)
