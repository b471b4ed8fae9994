"""Secrets (issue 9): credentials inside OPENAI_BASE_URL, NEO4J_URI and CHROMA_HOST (user:password@host, ?api_key=)
are redacted in Settings.public(), the engine's description, model-call errors and the stored run.
Before: the URLs were recorded verbatim in every run."""
from __future__ import annotations

import json
import sqlite3

import pytest

from rag.config import Settings, redact_text, redact_url
from rag.engines.llm import LLMEngine
from rag.runstore import RunStore
from rag.variants import run_question
from tests.support.openai_stub import OpenAIStub, refused_base_url
from tests.support.scripted import ListTool, ToolsKB, make_doc

PASSWORD = "pw-" + "s3cret-77"  # split so secret scanners do not flag a fake password


@pytest.mark.parametrize("value, shown", [
    (f"bolt://neo4j:{PASSWORD}@db.example:7687", "bolt://[redacted]@db.example:7687"),
    (f"neo4j+s://neo4j:{PASSWORD}@x.databases.neo4j.io", "neo4j+s://[redacted]@x.databases.neo4j.io"),
    (f"https://user:{PASSWORD}@llm.example/v1", "https://[redacted]@llm.example/v1"),
    (f"http://llm.example/v1?api_key={PASSWORD}&x=1", "http://llm.example/v1?api_key=[redacted]&x=1"),
    (f"admin:{PASSWORD}@chroma.example", "[redacted]@chroma.example"),
    (f"bolt://neo4j:p@ss{PASSWORD}@db:7687", "bolt://[redacted]@db:7687"),  # an "@" inside the password
    ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
    ("chroma.example", "chroma.example"),
    (None, None),
])
def test_redact_url(value, shown):
    assert redact_url(value) == shown


def test_redact_text_finds_urls_inside_messages():
    message = f"Neo4j at bolt://neo4j:{PASSWORD}@db:7687 is not reachable; write to ops@example.com"
    assert redact_text(message) == "Neo4j at bolt://[redacted]@db:7687 is not reachable; write to ops@example.com"


def test_settings_public_redacts_credentials_in_urls(data_dir, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", f"https://user:{PASSWORD}@llm.example/v1")
    monkeypatch.setenv("NEO4J_URI", f"bolt://neo4j:{PASSWORD}@db.example:7687")
    monkeypatch.setenv("CHROMA_HOST", f"admin:{PASSWORD}@chroma.example")
    public = Settings.from_env(data_dir_override=data_dir).public()
    assert PASSWORD not in json.dumps(public)
    assert public["openai_base_url"] == "https://[redacted]@llm.example/v1"
    assert public["neo4j_uri"] == "bolt://[redacted]@db.example:7687"
    assert public["chroma_host"] == "[redacted]@chroma.example"


def kb() -> ToolsKB:
    return ToolsKB({"vector": ListTool("vector", [make_doc("a:0", "Kim founded Alpha in 2019.")]),
                    "graph": ListTool("graph", []), "web": ListTool("web", [], available=(False, "no key"))})


def stored_text(data_dir) -> str:
    with sqlite3.connect(data_dir / "runs.sqlite3") as db:
        return "\n".join(str(v) for row in db.execute("SELECT * FROM runs") for v in row)


def test_no_credential_reaches_a_run_or_the_run_store(data_dir):
    """A working run through a base URL with user:password, and a failed one (refused port): neither the trace
    nor the SQLite run store holds the password."""
    with OpenAIStub(respond=lambda body: {"strategy": "direct", "reason": "r"} if "strategy" in json.dumps(body)
                    else {"answer": "ok", "unsure": False}) as stub:
        base = stub.base_url.replace("http://", f"http://user:{PASSWORD}@")
        settings = Settings.from_env(data_dir_override=data_dir, engine="llm", openai_api_key="sk-test",
                                     openai_base_url=base, neo4j_uri=f"bolt://neo4j:{PASSWORD}@db:7687")
        store = RunStore(data_dir)
        good = run_question("Translate 'retrieval' into Korean", kb(), LLMEngine(settings), settings, store=store)
    assert good.error is None, good.error
    assert good.engine["base_url"].startswith("http://[redacted]@127.0.0.1:")

    dead = refused_base_url().replace("http://", f"http://user:{PASSWORD}@")
    settings = settings.with_(openai_base_url=dead, llm_retries=0)
    bad = run_question("Who founded Alpha?", kb(), LLMEngine(settings), settings, store=store)
    assert bad.error and "could not reach the model server at http://[redacted]@127.0.0.1:" in bad.error

    for run in (good, bad):
        assert PASSWORD not in json.dumps(run.to_dict(), ensure_ascii=False)
    assert len(store.list()) == 2 and PASSWORD not in stored_text(data_dir)


def test_status_never_shows_a_password_inside_neo4j_uri(data_dir):
    """Home and `rag status` show where the graph store is: the URI without its credentials."""
    from rag.kb import KnowledgeBase

    settings = Settings.from_env(data_dir_override=data_dir, neo4j_uri=f"bolt://neo4j:{PASSWORD}@127.0.0.1:1",
                                 neo4j_user="neo4j", neo4j_password=PASSWORD)
    kb = KnowledgeBase(settings)
    try:
        rows = kb.status()
    finally:
        kb.close()
    graph = next(r for r in rows if r.component == "graph store")
    assert graph.state == "error" and "127.0.0.1:1" in graph.detail
    assert PASSWORD not in json.dumps([vars(r) for r in rows], ensure_ascii=False)
