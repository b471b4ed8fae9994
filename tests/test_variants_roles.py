"""Engine roles: RAG_ROLES mixes engines per role (an offline router with an llm grader), RAG_ENGINE accepts any
registered engine, and a bad role setting says what to write instead."""
from __future__ import annotations

import pytest

from rag.config import Settings
from rag.engines import ENGINES, get_engine, register_engine
from rag.engines.roles import ROLES, RoleEngine, parse_roles
from rag.types import RagError, Retrieved
from tests.support.openai_stub import OpenAIStub


def schema_name(body: dict) -> str:
    fmt = body.get("response_format") or {}
    if isinstance(fmt, dict) and isinstance(fmt.get("json_schema"), dict):
        return str(fmt["json_schema"].get("name", ""))
    tools = body.get("tools") or []
    return str((tools[0].get("function") or {}).get("name", "")) if tools else ""


def test_parse_roles_and_its_errors():
    assert parse_roles("grader=llm, router=offline,context=llm") == {"grader": "llm", "router": "offline",
                                                                     "evaluator": "llm"}
    with pytest.raises(RagError, match="unknown role 'judge'"):
        parse_roles("judge=llm")
    with pytest.raises(RagError, match="role=engine"):
        parse_roles("grader")
    assert set(ROLES) >= {"router", "grader", "evaluator", "rewriter", "generator", "extractor", "hallucination",
                          "answer_grader", "complexity", "refiner", "agent"}


def test_offline_router_with_an_llm_grader(data_dir, monkeypatch):
    with OpenAIStub(respond=lambda body: {"label": "correct", "score": 0.9, "reason": "states the fact"}
                    if "Grade" in schema_name(body) else {"grades": [{"id": "1", "label": "correct", "score": 0.9,
                                                                      "reason": "states the fact"}]}) as stub:
        monkeypatch.setenv("RAG_ROLES", "grader=llm")
        monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
        monkeypatch.setenv("RAG_ENGINE", "offline")
        settings = Settings.from_env()
        engine = get_engine(settings)
        assert isinstance(engine, RoleEngine)
        assert engine.engine_for("grader").name == "llm" and engine.engine_for("router").name == "offline"
        decision = engine.classify("128 곱하기 12는 얼마예요?", [])
        assert decision.strategy == "direct" and not decision.calls  # offline: no model call
        grade = engine.grade("When are contracts renewed?", Retrieved(id="d:0", text="Contracts renew in March.",
                                                                      source="hr.md", score=1.0, tool="vector"))
        assert grade.label == "correct" and grade.calls and grade.calls[0].model  # the llm graded it
        assert len(stub.requests) >= 1
        assert engine.describe()["roles"]["grader"] == "llm"


def test_rag_engine_accepts_any_registered_engine(data_dir):
    from rag.engines.offline import OfflineEngine

    class Quiet(OfflineEngine):
        name = "quiet"

    register_engine("quiet", Quiet)
    try:
        assert get_engine(Settings.from_env(engine="quiet")).name == "quiet"
    finally:
        ENGINES.pop("quiet", None)
    with pytest.raises(ValueError, match="engine must be one of"):
        Settings.from_env(engine="quiet")
