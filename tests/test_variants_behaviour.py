"""Each judging variant shows the behaviour the seeds describe, on sample questions and a sample document, with the
real offline engine (and, for self_rag's generator, the real llm client against the stub):

- adaptive skips retrieval on a direct question (seed 003);
- tool_agent answers without calling the retriever tool when it is not needed (seed 001, F6);
- crag strips a document to its relevant sentences before the generator sees it (seed 003, knowledge refinement);
- self_rag's hallucination grader catches an unsupported sentence and regenerates (F3).
"""
from __future__ import annotations

import json

import pytest

from rag.config import Settings
from rag.engines.llm import LLMEngine
from rag.engines.offline import OfflineEngine
from rag.engines.roles import RoleEngine
from rag.failures import label_run
from rag.loaders import split_text
from rag.types import Retrieved
from rag.variants import run_question
from tests.support.kb import SAMPLE_DOCS
from tests.support.openai_stub import OpenAIStub
from tests.support.scripted import ListTool, ToolsKB

pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
SAMPLES = {q["id"]: q for q in (json.loads(line) for line in
                                (SAMPLE_DOCS / "questions.jsonl").read_text(encoding="utf-8").splitlines()
                                if line.strip())}
HR = (SAMPLE_DOCS / "hr_compensation.txt").read_text(encoding="utf-8")


def hr_chunks(size: int = 400) -> list[Retrieved]:
    return [Retrieved(id=f"hr:{i}", text=t, source="hr_compensation.txt", score=1.0 - i / 10, tool="vector",
                      doc_id="hr", chunk_index=i) for i, t in enumerate(split_text(HR, size, 0))]


@pytest.fixture(scope="module")
def offline(tmp_path_factory) -> OfflineEngine:
    return OfflineEngine(Settings.from_env(data_dir_override=tmp_path_factory.mktemp("beh")))


@pytest.fixture
def kb():
    return ToolsKB({"vector": ListTool("vector", lambda q: hr_chunks()),
                    "web": ListTool("web", [], available=(False, "TAVILY_API_KEY is not set"))})


def test_adaptive_skips_retrieval_on_a_direct_question(offline, kb, data_dir):
    q = SAMPLES["direct-03"]
    run = run_question(q["question"], kb, offline, Settings.from_env(), variant="adaptive")
    assert run.path == ["classify_complexity", "direct_generate"]
    assert run.steps[0].decision == "simple" and "arithmetic" in run.steps[0].reason
    assert kb.tools()["vector"].queries == [] and run.documents == []
    assert "1536" in run.answer and run.route == "direct"
    # a document question goes the other way: one retrieval (moderate) or the CRAG loop (complex)
    run = run_question(SAMPLES["vec-02"]["question"], kb, offline, Settings.from_env(), variant="adaptive")
    assert run.steps[0].decision in ("moderate", "complex") and kb.tools()["vector"].queries


def test_tool_agent_answers_without_the_tool_when_it_is_not_needed(offline, kb, data_dir):
    q = SAMPLES["direct-01"]  # '검색 증강 생성'을 영어로 뭐라고 하나요?
    run = run_question(q["question"], kb, offline, Settings.from_env(), variant="tool_agent")
    assert run.path == ["agent"] and run.stop_reason == "direct"
    assert run.steps[0].output["tool_call"] is None and run.steps[0].decision == "answer directly"
    assert kb.tools()["vector"].queries == []
    assert "retrieval" in run.answer.lower() and not [f for f in label_run(run) if f.code == "F6"]
    # and it does call the tool for a document question
    run = run_question(SAMPLES["vec-02"]["question"], kb, offline, Settings.from_env(), variant="tool_agent")
    assert run.path[:3] == ["agent", "retrieve", "grade_documents"] and "3월" in run.answer


def test_crag_strips_a_document_to_its_relevant_sentences(offline, kb, data_dir):
    q = SAMPLES["vec-02"]  # 연봉 계약은 매년 몇 월에 갱신해?
    run = run_question(q["question"], kb, offline, Settings.from_env(), variant="crag")
    assert run.path == ["retrieve", "grade_documents", "refine_knowledge", "generate"]
    refine = run.steps[2]
    assert refine.output["kept_sentences"] >= 1 and refine.output["dropped_sentences"] >= 1
    strips = [d for d in refine.documents if d.metadata.get("strips")]
    assert strips and all(len(d.metadata["strips"]) < len(d.metadata["strips"]) + len(d.metadata["dropped"])
                          for d in strips)
    kept = [s for d in strips for s in d.metadata["strips"]]
    dropped = [s for d in strips for s in d.metadata["dropped"]]
    assert any("3월에 갱신" in s for s in kept)
    for d in strips:  # each strip document holds its kept sentences only
        assert d.text == " ".join(d.metadata["strips"])
        assert not set(d.metadata["strips"]) & set(d.metadata["dropped"])
    whole = {c.id: c.text for c in hr_chunks()}
    assert run.generator_context and all(whole[d.id] not in run.generator_context for d in strips)
    assert dropped and not all(s in run.generator_context for s in dropped)
    assert "3월" in run.answer and not run.abstained


def test_self_rag_catches_an_unsupported_sentence_and_regenerates(offline, kb, data_dir):
    invented = "연봉 계약 때 모든 직원에게 500만 원의 보너스를 지급한다"
    answers = iter([
        {"conclusion": f"연봉 계약은 매년 3월에 갱신합니다 [1]. {invented} [1].", "evidence": [], "citations": [1],
         "uncertainty": "", "insufficient_evidence": False},
        {"conclusion": "연봉 계약은 매년 3월에 갱신합니다 [1].", "evidence": [], "citations": [1], "uncertainty": "",
         "insufficient_evidence": False},
    ])
    with OpenAIStub(respond=lambda body: next(answers)) as stub:
        settings = Settings.from_env(openai_base_url=stub.base_url, openai_api_key="sk-test", engine="offline")
        engine = RoleEngine({"generator": LLMEngine(settings, max_retries=0)}, offline)  # RAG_ROLES=generator=llm
        run = run_question(SAMPLES["vec-02"]["question"], kb, engine, settings, variant="self_rag")
    checks = [s for s in run.steps if s.node == "check_hallucination"]
    assert [c.decision for c in checks] == ["not_supported", "supported"]
    assert any(invented in s for s in checks[0].output["unsupported"])
    assert "not supported" in checks[0].reason or "lack support" in checks[0].reason
    assert [s.node for s in run.steps].count("generate") == 2
    assert invented not in run.answer and "3월" in run.answer and run.stop_reason == "answer_useful"
    assert not [f for f in label_run(run) if f.code == "F3"]


def test_self_rag_flags_what_stays_unsupported_when_the_budget_runs_out(offline, kb, data_dir):
    invented = "연봉 계약 때 모든 직원에게 500만 원의 보너스를 지급한다"
    reply = {"conclusion": f"연봉 계약은 매년 3월에 갱신합니다 [1]. {invented} [1].", "evidence": [],
             "citations": [1], "uncertainty": "", "insufficient_evidence": False}
    with OpenAIStub(respond=lambda body: reply) as stub:
        settings = Settings.from_env(openai_base_url=stub.base_url, openai_api_key="sk-test", engine="offline")
        engine = RoleEngine({"generator": LLMEngine(settings, max_retries=0)}, offline)
        run = run_question(SAMPLES["vec-02"]["question"], kb, engine, settings.with_(max_attempts=2),
                           variant="self_rag")
    assert [s.node for s in run.steps].count("generate") == 2  # the generation budget
    assert run.stop_reason == "generation_budget" and run.partial and "not supported" in run.answer
    codes = {f.code: f for f in label_run(run)}
    assert codes["F3"].level == "observed" and codes["F5"].level == "observed"


def test_naive_answering_an_arithmetic_question_from_documents_is_labelled_f4_and_f6(offline, kb, data_dir):
    run = run_question(SAMPLES["direct-03"]["question"], kb, offline, Settings.from_env(), variant="naive")
    codes = {f.code: f for f in label_run(run) if f.level == "observed"}
    assert {"F4", "F6"} <= set(codes), codes
    assert "asked-about words" in codes["F4"].reason and codes["F6"].steps == [1]
    adaptive = run_question(SAMPLES["direct-03"]["question"], kb, offline, Settings.from_env(), variant="adaptive")
    assert not [f for f in label_run(adaptive) if f.level == "observed"]
