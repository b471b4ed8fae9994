"""The answer cache, streaming and cost on the pages (issue 11), with the llm engine against the stub: Ask streams the
answer into the live status, a repeated question is a cache hit linked to its original run (0 model calls), the
cache can be bypassed; Home shows the model of each role; Evaluate shows tokens and money per variant."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rag.eval.questions import Question, QuestionSet
from rag.eval.runner import evaluate
from rag_ui import resources
from rag_ui.state import ASK_RESULT, ASK_USE_CACHE, ASK_WITH_NAIVE, INSPECT_RUN_ID, QUESTION
from tests.support.openai_stub import OpenAIStub, batch_grades, purpose_of

REPO = Path(__file__).resolve().parents[1]
DOC = ("Atlas is the enterprise search service of Hanbit Labs. The Atlas search service fuses BM25 and dense "
       "results with RRF using k=60. Seoyeon Kim leads the Search Platform Team.")
ASKED = "What k does Atlas use for RRF?"


def respond(body):
    purpose = purpose_of(body)
    if purpose == "grade_batch":
        return batch_grades(body, lambda text: ("correct", 0.9) if "k=60" in text else ("incorrect", 0.1))
    return {"classify": {"strategy": "vector", "reason": "a fact to look up"},
            "grade": {"label": "correct", "score": 0.9, "reason": "states k"},
            "answer": {"conclusion": "Atlas uses k=60 for RRF. [1]", "evidence": ["RRF with k=60 [1]"],
                       "citations": [1], "uncertainty": "none", "insufficient_evidence": False},
            "extract": {"entities": [], "relations": []}}.get(purpose, "unexpected request")


@pytest.fixture
def llm_app(monkeypatch):
    with OpenAIStub(respond=respond) as stub:
        monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        monkeypatch.setenv("RAG_LLM_PRICES", "*=0.15/0.60")
        kb = resources.knowledge_base()
        assert kb.ingest_bytes("atlas.txt", DOC.encode()).status == "added"
        yield stub


def open_page(page: str | None = None, **state) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180)
    for key, value in state.items():
        at.session_state[key] = value
    if page:
        at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown(at: AppTest) -> str:
    return "\n".join(str(e.value) for kind in ("markdown", "caption", "info") for e in getattr(at, kind))


def test_ask_streams_then_serves_a_repeat_from_the_cache_and_can_bypass_it(llm_app):
    at = open_page("app_pages/ask.py", **{QUESTION: ASKED, ASK_WITH_NAIVE: False})
    at.button(key="ask").click().run()
    assert not at.exception, [e.value for e in at.exception]
    first = at.session_state[ASK_RESULT]["run"]
    assert first.llm_calls >= 2 and not first.cache
    assert any("Atlas uses k=60 for RRF." in str(m.value) and "▌" in str(m.value) for m in at.markdown), \
        [m.value for m in at.markdown]
    caption = next(c.value for c in at.caption if c.value.startswith("Tokens in/out per role:"))
    assert "grader" in caption and "generator" in caption and "cost $" in caption
    requests = len(llm_app.chat_requests)

    at.button(key="ask").click().run()
    again = at.session_state[ASK_RESULT]["run"]
    assert again.cache["hit"] and again.cache["original_run_id"] == first.run_id and again.llm_calls == 0
    assert len(llm_app.chat_requests) == requests
    assert f"the same question as run `{first.run_id}`" in shown(at)
    at.button(key="open_cached_original").click().run()
    assert at.session_state[INSPECT_RUN_ID] == first.run_id

    at = open_page("app_pages/ask.py", **{QUESTION: ASKED, ASK_WITH_NAIVE: False, ASK_USE_CACHE: False})
    at.button(key="ask").click().run()
    fresh = at.session_state[ASK_RESULT]["run"]
    assert not fresh.cache and fresh.llm_calls >= 2 and len(llm_app.chat_requests) > requests


def test_home_shows_the_model_of_each_role(llm_app, monkeypatch):
    monkeypatch.setenv("RAG_GRADER_MODEL", "small-grader")
    at = open_page()
    [roles] = [t.value for t in at.table if "role" in list(t.value.columns)]
    assert list(roles["model"])[1] == "small-grader" and list(roles["how"])[1] == "all documents in one call"
    assert list(roles["how"])[2] == "computed from the grades (no call)"


def test_evaluate_shows_tokens_and_money_per_variant(llm_app):
    settings = resources.settings()
    qset = QuestionSet(name="one", questions=[Question(id="q1", question=ASKED, expected_route="vector")])
    report = evaluate(qset, ["naive", "agentic"], resources.knowledge_base(settings), resources.engine(settings),
                      settings, resources.run_store(settings))
    at = open_page("app_pages/evaluate.py", eval_report=report)
    assert any(s.value.startswith("Tokens and money per variant") for s in at.subheader)
    frames = [d.value for d in at.dataframe if "usd per question" in list(d.value.columns)]
    assert frames and set(frames[0]["variant"]) == {"naive", "agentic"}
    assert all(str(v).startswith("$") for v in frames[0]["usd"])


def test_a_cache_hit_opens_in_the_inspector(llm_app):
    at = open_page("app_pages/ask.py", **{QUESTION: ASKED, ASK_WITH_NAIVE: False})
    at.button(key="ask").click().run()
    at.button(key="ask").click().run()
    hit = at.session_state[ASK_RESULT]["run"]
    assert hit.cache["hit"]
    at = open_page("app_pages/inspector.py", **{INSPECT_RUN_ID: hit.run_id})  # no steps: nothing to step through
    assert any(f"as run `{hit.cache['original_run_id']}`" in i.value for i in at.info)
    at.button(key=f"cache_original_{hit.run_id}").click().run()
    assert not at.exception and at.session_state[INSPECT_RUN_ID] == hit.cache["original_run_id"]
