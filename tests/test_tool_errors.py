"""Errors are errors (issue 9): a shipped retrieval tool that crashes on a fault records an error and stops the run;
``ToolUnavailable`` (a failed attempt the agent routes around) is only for a service switched off or unreachable.

Real tools (GraphTool over a real embedded graph store, WebTool with the real Tavily client against a local HTTP
server); a fault is one store method that raises what a bug raises. Before, both became "the graph tool is
unavailable: graph store failed: TypeError …" and the agent quietly re-routed.
"""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from rag.config import Settings
from rag.graphstore.embedded import EmbeddedGraphStore
from rag.tools.graph import GraphTool
from rag.tools.web import WebTool
from rag.types import Entity, Relation, ToolUnavailable
from rag.variants import run_question
from rag.variants.agentic import CLASSIFY, RETRIEVE_GRAPH, RETRIEVE_WEB
from tests.support.openai_stub import refused_base_url
from tests.support.scripted import ListTool, ScriptedEngine, make_doc

FACT = Relation(source="Alpha", predicate="founded_by", target="Kim", evidence="Kim founded Alpha in 2019.",
                doc_id="d1", chunk_id="d1:0", source_file="alpha.md")


class FaultyStore(EmbeddedGraphStore):
    """The real embedded store, except that ``fail_in`` raises ``error`` (what a bug or an outage raises)."""

    def __init__(self, path, fail_in: str, error: Exception) -> None:
        super().__init__(path)
        self.fail_in, self.error = fail_in, error

    def counts(self):
        if self.fail_in == "counts":
            raise self.error
        return super().counts()

    def expand(self, entities, hops=2, limit=50):
        if self.fail_in == "expand":
            raise self.error
        return super().expand(entities, hops=hops, limit=limit)


class GraphKB:
    """A knowledge base holding a real graph store and the real graph tool (vector: one fixed chunk)."""

    def __init__(self, graph, settings: Settings) -> None:
        self.graph = graph
        self._tools = {"vector": ListTool("vector", [make_doc("d1:0", "Kim founded Alpha in 2019.")]),
                       "graph": GraphTool(self, settings), "web": WebTool(self, settings)}

    def tools(self):
        return dict(self._tools)

    def known_entities(self):
        return self.graph.entity_names()


@pytest.fixture
def settings(data_dir) -> Settings:
    return Settings.from_env(data_dir_override=data_dir, engine="offline", tavily_api_key=None, neo4j_uri=None)


def graph_kb(settings, fail_in: str, error: Exception) -> GraphKB:
    store = FaultyStore(settings.data_dir / "graph.json", fail_in, error)
    store.upsert("d1", [Entity("Alpha", "org"), Entity("Kim", "person")], [FACT])
    return GraphKB(store, settings)


@pytest.mark.parametrize("fail_in", ["expand", "counts"])
def test_a_graph_store_bug_is_an_error_not_unavailable(settings, fail_in):
    kb = graph_kb(settings, fail_in, TypeError("unhashable type: 'list'"))
    run = run_question("Who founded Alpha?", kb, ScriptedEngine(classify="graph"), settings)
    assert run.path == [CLASSIFY, RETRIEVE_GRAPH]
    step = run.steps[-1]
    assert step.status == "failed" and "TypeError: unhashable type: 'list'" in step.error
    assert run.stop_reason == "error" and "TypeError" in run.error and "unavailable" not in run.error


def test_an_unreachable_graph_store_is_a_failed_attempt_the_agent_routes_around(settings):
    kb = graph_kb(settings, "counts", ToolUnavailable("Neo4j at bolt://neo4j:s3cret@127.0.0.1:7687 is not reachable"))
    run = run_question("Who founded Alpha?", kb, ScriptedEngine(classify="graph", evaluate=[0.9]), settings)
    assert run.error is None and run.path[:2] == [CLASSIFY, RETRIEVE_GRAPH]
    graph_step = run.steps[1]
    assert graph_step.status == "failed" and "unavailable" in graph_step.reason
    assert "s3cret" not in graph_step.reason and "[redacted]@127.0.0.1" in graph_step.reason  # no password in runs
    assert run.attempts[0].status == "failed" and run.attempts[1].strategy == "vector"


def test_the_real_graph_tool_still_answers(settings):
    kb = graph_kb(settings, "nothing", RuntimeError("unused"))
    docs = kb.tools()["graph"].run("Who founded Alpha?", 4)
    assert docs and docs[0].metadata["triple"] == ["Alpha", "founded_by", "Kim"]


# ---- web ----------------------------------------------------------------------------------------------------------

@pytest.fixture
def tavily_server():
    """A local stand-in for api.tavily.com that answers /search with ``state["reply"]``."""
    state = {"reply": {"results": []}, "requests": 0}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            state["requests"] += 1
            data = json.dumps(state["reply"]).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    state["url"] = f"http://127.0.0.1:{server.server_address[1]}"
    yield state
    server.shutdown()
    server.server_close()


def web_tool(settings, base_url: str) -> WebTool:
    from tavily import TavilyClient

    tool = WebTool(None, settings.with_(tavily_api_key="tvly-test-key"))
    tool._client = TavilyClient(api_key="tvly-test-key", api_base_url=base_url)  # the real client, local server
    return tool


def test_web_search_results_are_read(settings, tavily_server):
    tavily_server["reply"] = {"results": [{"url": "http://127.0.0.1/a", "title": "A", "content": "Alpha",
                                           "score": 0.7}]}
    [doc] = web_tool(settings, tavily_server["url"]).run("Alpha", 3)
    assert doc.source == "http://127.0.0.1/a" and doc.text == "A\nAlpha" and doc.tool == "web"


def test_an_unreadable_web_reply_is_an_error_and_a_dead_service_is_unavailable(settings, tavily_server):
    tavily_server["reply"] = {"results": "not a list of results"}
    with pytest.raises(AttributeError):  # a reply we cannot read is a fault to see, not "unavailable"
        web_tool(settings, tavily_server["url"]).run("Alpha", 3)
    with pytest.raises(ToolUnavailable, match="web search failed: ConnectionError"):
        web_tool(settings, refused_base_url().removesuffix("/v1")).run("Alpha", 3)


def test_a_web_fault_stops_the_run_with_an_error(settings, tavily_server):
    tavily_server["reply"] = {"results": "not a list of results"}
    kb = graph_kb(settings, "nothing", RuntimeError("unused"))
    kb._tools["web"] = web_tool(settings, tavily_server["url"])
    run = run_question("What happened today?", kb, ScriptedEngine(classify="web"), settings)
    assert run.path == [CLASSIFY, RETRIEVE_WEB] and run.steps[-1].status == "failed"
    assert run.stop_reason == "error" and "AttributeError" in run.error
