"""With the llm engine the SQL comes from the model, given the schema, and is still validated before it runs
(the real langchain-openai client against tests/support/openai_stub.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from rag.config import Settings
from rag.engines.llm import LLMEngine
from rag.kb import KnowledgeBase
from rag.variants import run_question
from rag.variants.react import ACT
from tests.support.openai_stub import OpenAIStub

API_KEY = "sk-" + "test-sql-0123456789abcdef"
TABLES = Path(__file__).resolve().parents[1] / "sample_docs" / "tables"
GOOD_SQL = 'SELECT SUM("장애 건수(incidents)") AS n FROM incidents_by_month WHERE "제품(product)" = \'Nuri\''


def schema_name(body) -> str:
    fmt = body.get("response_format") or {}
    return str((fmt.get("json_schema") or {}).get("name", ""))


def script(sql: str):
    def reply(body):
        name = schema_name(body)
        if name == "ClassifyOutput":
            return {"strategy": "sql", "kind": "aggregate", "targets": [], "reason": "a count over a table"}
        if name == "SqlOutput":
            return {"sql": sql, "reason": "incidents of Nuri summed"}
        if name == "AnswerOutput":
            return {"conclusion": "Nuri had 39 incidents [1]", "evidence": ["39 incidents [1]"], "citations": [1],
                    "uncertainty": "", "insufficient_evidence": False}
        if name == "PartialOutput":
            return {"found": [], "not_found": ["the incident count"], "citations": [], "nothing_relevant": True}
        return {"score": 0.0, "reason": "unexpected request"}
    return reply


@pytest.fixture
def kb(tmp_path):
    kb = KnowledgeBase(Settings(data_dir=tmp_path / "kb"))
    for path in sorted(TABLES.glob("*.csv")):
        assert kb.ingest_bytes(path.name, path.read_bytes()).status == "added"
    yield kb
    kb.close()


def engine_for(stub: OpenAIStub, kb: KnowledgeBase) -> LLMEngine:
    settings = kb.settings.with_(engine="llm", openai_api_key=API_KEY, openai_base_url=stub.base_url,
                                 router_model="router-m", generator_model="writer-m", llm_routing="model",
                                 llm_timeout_s=10)
    return LLMEngine(settings, structured_method="json_schema", max_retries=0)


def test_the_model_writes_the_sql_from_the_schema_and_it_runs_validated(kb):
    with OpenAIStub(respond=script(GOOD_SQL)) as stub:
        engine = engine_for(stub, kb)
        run = run_question("How many incidents did Nuri have?", kb, engine, engine.settings, variant="react")
        sql_request = next(r for r in stub.chat_requests if schema_name(r.body) == "SqlOutput")
    assert run.error is None and run.route == "sql" and run.steps[0].output["kind"] == "aggregate"
    prompt = sql_request.body["messages"][0]["content"]
    assert 'incidents_by_month("월(month)" VARCHAR' in prompt and "36 rows" in prompt  # the schema went in
    act = next(s for s in run.steps if s.node == ACT)
    assert act.output["origin"] == "model" and act.output["rows"] == [[39]]
    assert act.output["sql"].endswith("LIMIT 200")  # validated: the row limit was added
    assert [c.purpose for c in act.model_calls] == ["sql"]
    assert run.stop_reason == "enough_evidence" and "39" in run.answer


def test_a_dangerous_query_from_the_model_is_refused_before_it_runs(kb):
    with OpenAIStub(respond=script("DROP TABLE incidents_by_month")) as stub:
        engine = engine_for(stub, kb)
        run = run_question("How many incidents did Nuri have?", kb, engine, engine.settings, variant="react")
    act = next(s for s in run.steps if s.node == ACT)
    assert act.status == "failed" and "refused: DROP is not a SELECT" in act.reason
    assert act.output["sql"] == "DROP TABLE incidents_by_month" and act.output["refused"] is True
    assert run.attempts[0].status == "failed"
    assert kb.tables.schema("incidents_by_month").n_rows == 36  # nothing ran
