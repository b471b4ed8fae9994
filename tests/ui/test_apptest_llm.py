"""Ask and inspect with the `llm` decision engine (the real langchain-openai client against the local stub server):
the model calls, tokens, prompts and raw outputs the trace records show up on the pages."""
from __future__ import annotations

import pytest

from rag_ui import resources
from rag_ui.state import ASK_RESULT, INSPECT_RUN_ID, QUESTION
from tests.support.openai_stub import OpenAIStub, purpose_of
from tests.ui.conftest import texts

DOC = ("Atlas is the enterprise search service of Hanbit Labs. The Atlas search service fuses BM25 and dense "
       "results with RRF using k=60. Seoyeon Kim leads the Search Platform Team.")
REPLIES = {
    "classify": {"strategy": "vector", "reason": "a fact to look up in the documents"},
    "grade": {"label": "correct", "score": 0.9, "reason": "states the value of k"},
    "quality": {"score": 0.85, "reason": "the context answers the question"},
    "answer": {"conclusion": "Atlas uses k=60 for RRF. [1]", "evidence": ["RRF with k=60 [1]"], "citations": [1],
               "uncertainty": "none", "insufficient_evidence": False},
    "extract": {"entities": [{"name": "Atlas", "type": "product"}], "relations": []},
}


@pytest.fixture
def llm_app(monkeypatch):
    with OpenAIStub(respond=lambda body: REPLIES.get(purpose_of(body), "unexpected request")) as stub:
        monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        kb = resources.knowledge_base()
        assert kb.ingest_bytes("atlas.txt", DOC.encode()).status == "added"
        yield stub


def test_llm_run_shows_model_calls_prompts_and_raw_output(open_app, llm_app):
    home = open_app()  # (AppTest keeps the sidebar of an st.navigation app on the first, main-page run only)
    assert "decision engine: **llm**" in "\n".join(str(m.value) for m in home.sidebar.markdown)
    at = open_app("app_pages/ask.py", **{QUESTION: "What k does Atlas use for RRF?"})
    at.button(key="ask").click().run()
    assert not at.exception, [e.value for e in at.exception]
    run, naive = at.session_state[ASK_RESULT]["run"], at.session_state[ASK_RESULT]["naive"]
    assert run.engine.get("name", "llm") == "llm" and run.llm_calls >= 4 and naive.llm_calls == 1
    assert run.answer.startswith("Conclusion: Atlas uses k=60") or "k=60" in run.answer
    calls_shown = [m.value for m in at.metric if m.label == "model calls"]
    assert calls_shown == [str(run.llm_calls), str(naive.llm_calls)]  # agentic, then naive beside it
    assert f"{run.llm_calls - naive.llm_calls:+d} model calls" in texts(at)
    assert run.tokens["total"] > 0 and str(run.tokens["total"]) in [m.value for m in at.metric]
    assert "sk-test-not-a-real-key" not in str(run.to_dict())

    # the inspector shows the classify step's prompt and the model's raw output
    at = open_app("app_pages/inspector.py", **{INSPECT_RUN_ID: run.run_id})
    at.slider(key=f"step_{run.run_id}").set_value(1).run()
    call = run.steps[0].model_calls[0]
    assert any(e.label.startswith(f"1. classify · {call.model}") for e in at.expander)
    assert any(call.raw_output == c.value for c in at.code)
    assert any(call.prompt[-1]["content"] == t.value for t in at.text)
