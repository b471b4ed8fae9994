"""Knowledge graph page (AppTest): search an entity, see its neighbourhood and its relations with evidence."""
from __future__ import annotations

from rag_ui import resources, widgets
from rag_ui.state import GRAPH_ENTITY
from tests.ui.conftest import texts


def test_empty_graph_says_what_to_do(open_app):
    at = open_app("app_pages/graph.py")
    assert "The graph is empty" in texts(at)


def test_search_entity_draws_neighbourhood_with_evidence(open_app, samples):
    kb = resources.knowledge_base()
    name = max(kb.known_entities(), key=lambda n: len(kb.graph.neighbourhood(n, hops=1)[1]))
    at = open_app("app_pages/graph.py")
    at.text_input(key="graph_search").input(name).run()
    assert not at.exception
    assert name in at.selectbox(key=GRAPH_ENTITY).options
    at.selectbox(key=GRAPH_ENTITY).select(name).run()
    spec = at.get("graphviz_chart")[0].proto.spec
    assert "penwidth=3" in spec and "->" in spec
    relations = at.dataframe[0].value
    assert len(relations) > 0 and relations["evidence"].str.len().min() > 0
    assert f"of **{name}**" in texts(at)


def test_unknown_entity_search_is_explained(open_app, samples):
    at = open_app("app_pages/graph.py")
    at.text_input(key="graph_search").input("zzzz-no-such-entity").run()
    assert "No entity matches" in texts(at)


def test_entity_without_relations_is_explained_and_drawn_small(open_app, samples):
    kb = resources.knowledge_base()
    lone = next(n for n in kb.known_entities() if not kb.graph.neighbourhood(n, hops=1)[1])
    at = open_app("app_pages/graph.py")
    at.text_input(key="graph_search").input(lone).run()
    at.selectbox(key=GRAPH_ENTITY).select(lone).run()
    assert not at.exception
    assert "no relation links it" in texts(at)  # guidance, not an empty table
    assert not at.dataframe
    # one node keeps its natural size instead of being stretched to the page width (a giant box)
    assert at.get("graphviz_chart")[0].proto.spec.count(" [label=") == 1
    assert widgets.graph_width(1) == "content"
