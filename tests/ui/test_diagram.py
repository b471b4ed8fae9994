"""The drawing code: the agent diagram, the quality chart data and the teaching notes, from a hand-built trace."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from rag.variants.agentic import GRAPH_EDGES
from rag_ui import charts, diagram, notes
from tests.support.prereq import needs
from tests.ui.runs import rerouted_run


def edge_attrs(dot: str, src: str, dst: str) -> str:
    match = re.search(rf'"{src}" -> "{dst}" \[(.*)\]', dot)
    assert match, f"edge {src} -> {dst} missing"
    return match.group(1)


def node_attrs(dot: str, name: str) -> str:
    match = re.search(rf'^  "{name}" \[(.*)\]$', dot, re.M)
    assert match, f"node {name} missing"
    return match.group(1)


def test_static_diagram_has_every_graph_edge_unlit():
    dot = diagram.agent_dot()
    for src, dst in GRAPH_EDGES:
        assert "dashed" in edge_attrs(dot, src, dst)
    assert "#" not in re.sub(r'"#[0-9a-f]{6}"', "", dot)  # no visit numbers without a run


def test_path_is_highlighted_and_numbered_in_order():
    run = rerouted_run()
    dot = diagram.agent_dot(run)
    assert 'label=" 1 "' in edge_attrs(dot, "__start__", "classify")
    assert 'label=" 2 "' in edge_attrs(dot, "classify", "retrieve_vector")
    # grade_documents -> evaluate_context was taken twice: both numbers on one edge
    assert 'label=" 4, 8 "' in edge_attrs(dot, "grade_documents", "evaluate_context")
    # the re-route is drawn in the loop colour, the untaken rewrite stays dashed
    assert diagram.COLOR_LOOP in edge_attrs(dot, "evaluate_context", "re_route")
    assert diagram.COLOR_LOOP in edge_attrs(dot, "re_route", "retrieve_graph")
    assert "dashed" in edge_attrs(dot, "evaluate_context", "rewrite_query")
    assert 'label=" 10 "' in edge_attrs(dot, "generate", "__end__")
    assert "#3 #7" in node_attrs(dot, "grade_documents")
    assert diagram.FILL_VISITED in node_attrs(dot, "retrieve_graph")
    assert diagram.FILL_VISITED not in node_attrs(dot, "retrieve_web")


def test_upto_moves_the_highlight():
    run = rerouted_run()
    dot = diagram.agent_dot(run, upto=3)  # 4th step: evaluate_context of attempt 1
    assert diagram.FILL_CURRENT in node_attrs(dot, "evaluate_context")
    assert "dashed" in edge_attrs(dot, "evaluate_context", "re_route")  # not taken yet at step 4
    assert "dashed" in edge_attrs(dot, "generate", "__end__")
    assert [n for n, _, _ in diagram.taken_edges(run, upto=3)] == [1, 2, 3, 4]
    assert len(diagram.taken_edges(run)) == len(run.edges)


def test_unknown_recorded_edge_is_drawn_not_hidden():
    run = rerouted_run()
    run.edges.insert(2, ["retrieve_vector", "nowhere"])
    dot = diagram.agent_dot(run)
    assert diagram.COLOR_FAIL in edge_attrs(dot, "retrieve_vector", "nowhere")


@needs(shutil.which("dot") is not None, "graphviz `dot`", "scripts/test.sh installs it: apt-get install graphviz")
def test_dot_is_valid_graphviz():
    for dot in (diagram.agent_dot(), diagram.agent_dot(rerouted_run(), upto=5)):
        out = subprocess.run(["dot", "-Tsvg"], input=dot.encode(), capture_output=True, check=True)
        assert b"<svg" in out.stdout


def test_quality_frame_and_chart_carry_scores_and_threshold():
    run = rerouted_run()
    frame = charts.quality_frame(run)
    assert list(frame["quality"]) == [0.3, 0.8]
    assert list(frame["passed"]) == [False, True]
    assert list(frame["next step"]) == ["re_route", "generate"]  # evaluate_context's recorded decisions
    spec = charts.quality_chart(run).to_dict()
    assert any(layer["mark"]["type"] == "rule" if isinstance(layer["mark"], dict) else layer["mark"] == "rule"
               for layer in spec["layer"])
    labels = [v for data in spec["datasets"].values() for row in data for k, v in row.items() if k == "caption"]
    assert labels == ["threshold · 기준 0.60"]  # the dashed line is labelled, not only coloured


def test_teaching_notes_use_the_recorded_step():
    run = rerouted_run()
    ko, en = notes.teaching_note(run.steps[0], run)
    assert "vector" in ko and "a fact about one document" in en
    ko, en = notes.teaching_note(run.steps[2], run)
    assert "incorrect 1" in ko and "1 ambiguous" in en
    ko, en = notes.teaching_note(run.steps[3], run)
    assert "0.30" in ko and "re_route" in en


def test_naive_and_unknown_variants_draw_their_own_graph():
    from rag.variants.naive import GRAPH_EDGES as NAIVE_EDGES

    assert diagram.graph_edges("naive") == diagram.normalize_edges(NAIVE_EDGES)
    run = rerouted_run()
    run.variant = "no_such_variant"
    dot = diagram.agent_dot(run)
    assert diagram.COLOR_FAIL not in edge_attrs(dot, "classify", "retrieve_vector")  # recorded path = the graph
    assert 'label=" 1 "' in edge_attrs(dot, "__start__", "classify")
    assert "retrieve_web" not in dot


def test_small_graphs_keep_their_natural_size():
    """A 4-node naive diagram stretched to the column width became giant boxes; the agent graph still fills it."""
    from rag_ui import widgets

    naive = diagram.agent_dot(None, edges=diagram.graph_edges("naive"))
    agentic = diagram.agent_dot(rerouted_run())
    assert diagram.count_nodes(naive) == 4
    assert diagram.count_nodes(agentic) == len({n for e in diagram.graph_edges("agentic") for n in e})
    assert widgets.graph_width(diagram.count_nodes(naive)) == "content"
    assert widgets.graph_width(diagram.count_nodes(agentic)) == "stretch"
