"""The llm engine at a sane price (issue 11), through the real langchain-openai client against the stub.

Batched grading (good, partial, malformed, one bad item), the per-document fallback and how it is recorded,
parallel and per-document modes, tiered routing (which tier decided and why), quality computed from the grades, and
an agent run whose answers and grades are the same in every grading mode.
"""
from __future__ import annotations

import pytest

from rag.config import Settings
from rag.engines.llm import LLMEngine
from rag.engines.offline import OfflineEngine
from rag.types import Grade, Retrieved
from rag.variants import run_question
from tests.support.kb import build_kb
from tests.support.openai_stub import OpenAIStub, Reply, batch_grades, numbered_documents, purpose_of

API_KEY = "sk-" + "test-cost-0123456789abcdef"


def doc(text: str, source: str, index: int = 0) -> Retrieved:
    return Retrieved(id=f"{source}:{index}", text=text, source=source, score=0.8, tool="vector", doc_id=source,
                     chunk_index=index)


WAGE = doc("2023년 최저임금은 시간당 9,620원이다.", "wage.md")
SALARY = doc("임직원 연봉은 매년 3월에 계약을 갱신한다.", "hr.txt")
LEAVE = doc("입사 1년 후 연차 휴가는 15일이다.", "leave.md")
DOCS = [WAGE, SALARY, LEAVE]


def judge(text: str) -> tuple[str, float]:
    """The scripted grader: the same verdict for a document whether it is graded alone or in a batch."""
    if "최저임금" in text:
        return "correct", 0.9
    if "연봉" in text:
        return "ambiguous", 0.5
    return "incorrect", 0.1


def scripted(kind: str = "good", drop: tuple[int, ...] = ()):
    """A stub responder: batched grading as ``kind``; one-document grading by ``judge``; answers cite [1]."""

    def respond(body):
        purpose = purpose_of(body)
        if purpose == "grade_batch":
            return batch_grades(body, judge, kind, drop)
        if purpose == "grade":
            label, score = judge(body["messages"][-1]["content"].split("<document", 1)[1])
            return {"label": label, "score": score, "reason": f"scripted {label}"}
        if purpose == "classify":
            return {"strategy": "vector", "reason": "scripted"}
        if purpose == "quality":
            return {"score": 0.9, "reason": "scripted"}
        if purpose == "partial":
            return {"found": ["something [1]"], "not_found": ["the rest"], "citations": [1], "nothing_relevant": False}
        return {"conclusion": "2023년 최저임금은 시간당 9,620원입니다. [1]", "evidence": ["9,620원 [1]"],
                "citations": [1], "uncertainty": "", "insufficient_evidence": False}

    return respond


@pytest.fixture
def stub():
    with OpenAIStub() as server:
        yield server


def make_engine(stub: OpenAIStub, tmp_path, **overrides) -> LLMEngine:
    settings = Settings(data_dir=tmp_path, engine="llm", openai_api_key=API_KEY, openai_base_url=stub.base_url,
                        router_model="router-m", grader_model="grader-m", generator_model="writer-m",
                        llm_timeout_s=10, **overrides)
    return LLMEngine(settings, max_retries=0)


# ---- batched grading ----------------------------------------------------------------------------------------
def test_batched_grading_is_one_call_with_one_verdict_per_document(stub, tmp_path):
    stub.respond = scripted("good")
    grades, info = make_engine(stub, tmp_path).grade_all("2023년 최저임금은 얼마인가?", DOCS)
    assert [(g.label, g.score) for g in grades] == [("correct", 0.9), ("ambiguous", 0.5), ("incorrect", 0.1)]
    assert len(stub.chat_requests) == 1 and purpose_of(stub.chat_requests[0].body) == "grade_batch"
    assert [n for n, _ in numbered_documents(stub.chat_requests[0].body)] == [1, 2, 3]
    [call] = info["calls"]
    assert call.model == "grader-m" and call.purpose == "grade" and call.error is None
    assert info["mode"] == "batch" and info["fallback_ids"] == [] and all(g.calls == [] for g in grades)
    assert stub.chat_requests[0].body["response_format"]["json_schema"]["name"] == "GradeBatchOutput"


def test_batched_grading_cuts_long_documents(stub, tmp_path):
    stub.respond = scripted("good")
    long = doc("최저임금 " + "가나다라 " * 600, "long.md")
    make_engine(stub, tmp_path).grade_all("2023년 최저임금은?", [long])
    [(_, shown)] = numbered_documents(stub.chat_requests[0].body)
    assert len(shown) < 720 and shown.endswith("…")


def test_partial_reply_grades_only_the_missing_document_on_its_own(stub, tmp_path):
    stub.respond = scripted("partial", drop=(2,))
    grades, info = make_engine(stub, tmp_path).grade_all("2023년 최저임금은 얼마인가?", DOCS)
    assert [g.label for g in grades] == ["correct", "ambiguous", "incorrect"]
    assert [purpose_of(r.body) for r in stub.chat_requests] == ["grade_batch", "grade"]
    assert "hr.txt" in stub.chat_requests[1].body["messages"][-1]["content"]  # only document 2 asked again
    assert info["fallback_ids"] == ["hr.txt:0"] and "document(s) 2" in info["fallback_reason"]
    assert "incomplete output" in info["calls"][0].error
    assert "graded on its own" in grades[1].reason and len(grades[1].calls) == 1
    assert grades[0].calls == [] and grades[2].calls == []


def test_malformed_reply_grades_every_document_on_its_own(stub, tmp_path):
    stub.respond = scripted("malformed")
    grades, info = make_engine(stub, tmp_path).grade_all("2023년 최저임금은 얼마인가?", DOCS)
    assert [g.label for g in grades] == ["correct", "ambiguous", "incorrect"]
    assert [purpose_of(r.body) for r in stub.chat_requests] == ["grade_batch", "grade", "grade", "grade"]
    assert info["fallback_ids"] == [d.id for d in DOCS]
    assert info["calls"][0].error.startswith("malformed output")
    assert all("graded on its own" in g.reason for g in grades)


def test_one_bad_item_costs_only_its_own_document(stub, tmp_path):
    stub.respond = scripted("bad_item", drop=(3,))
    grades, info = make_engine(stub, tmp_path).grade_all("2023년 최저임금은 얼마인가?", DOCS)
    assert [g.label for g in grades] == ["correct", "ambiguous", "incorrect"]
    assert info["fallback_ids"] == ["leave.md:0"] and "an unusable verdict" in grades[2].reason
    assert len(stub.chat_requests) == 2


def test_out_of_range_score_and_unknown_ids_fall_back(stub, tmp_path):
    stub.add({"grades": [{"id": "1", "label": "correct", "score": 4.0, "reason": "x"},
                         {"id": "7", "label": "correct", "score": 0.9, "reason": "no such document"},
                         {"id": "2", "label": "ambiguous", "score": 0.5, "reason": "topic"},
                         {"id": "2", "label": "correct", "score": 0.9, "reason": "repeated id: the first counts"}]})
    stub.respond = scripted("good")
    grades, info = make_engine(stub, tmp_path).grade_all("2023년 최저임금은?", [WAGE, SALARY])
    assert [(g.label, g.score) for g in grades] == [("correct", 0.9), ("ambiguous", 0.5)]
    assert info["fallback_ids"] == ["wage.md:0"] and len(stub.chat_requests) == 2


def test_a_failed_batched_request_fails_the_step_instead_of_guessing(stub, tmp_path):
    from rag.engines.llm import ModelCallFailed

    stub.add(Reply(status=500))
    with pytest.raises(ModelCallFailed, match="HTTP 500"):
        make_engine(stub, tmp_path).grade_all("q", DOCS)


@pytest.mark.parametrize("mode", ["parallel", "per_doc"])
def test_parallel_and_per_document_modes_grade_each_document_once(stub, tmp_path, mode):
    stub.respond = scripted("good")
    grades, info = make_engine(stub, tmp_path, llm_grading=mode).grade_all("2023년 최저임금은?", DOCS)
    assert [(g.label, g.score) for g in grades] == [("correct", 0.9), ("ambiguous", 0.5), ("incorrect", 0.1)]
    assert [purpose_of(r.body) for r in stub.chat_requests] == ["grade"] * 3 and info["mode"] == mode
    assert all(len(g.calls) == 1 and g.calls[0].model == "grader-m" for g in grades)


def test_parallel_grading_overlaps_the_requests(tmp_path):
    # overlap, not speed: each call waits 1 s for its reply, so calls made one after another reach the server at
    # least 1 s apart; parallel ones all arrive before the first reply (no wall-clock budget: shared machines are noisy)
    with OpenAIStub(respond=scripted("good"), latency_s=1.0) as slow:
        engine = make_engine(slow, tmp_path, llm_grading="parallel")
        engine.grade_all("2023년 최저임금은?", DOCS)
        arrived = [r.at for r in slow.chat_requests]
        assert len(arrived) == 3 and max(arrived) - min(arrived) < 1.0, arrived


# ---- tiered routing and computed quality ----------------------------------------------------------------------
def test_confident_offline_router_decides_without_a_model_call(stub, tmp_path):
    engine = make_engine(stub, tmp_path)
    decision = engine.classify("Nuri-LM을 개발한 조직은 어느 도시에 있나요?", ["Nuri-LM", "Hanbit Research"])
    assert decision.strategy == "graph" and decision.calls == [] and stub.chat_requests == []
    assert decision.signals["tier"] == "offline" and "relation" in decision.signals["tier_reason"]
    value = engine.classify("입사하고 1년이 지나면 연차 휴가가 며칠 생기나요?", [])
    assert value.strategy == "vector" and value.signals["tier"] == "offline" and "value" in value.signals["tier_reason"]
    assert stub.chat_requests == []


def test_a_statistic_or_comparison_goes_to_the_model_which_may_choose_sql(stub, tmp_path):
    engine = make_engine(stub, tmp_path)
    stub.add({"strategy": "sql", "kind": "aggregate", "targets": [], "reason": "a count over the staff table"},
             {"strategy": "sql", "kind": "comparison", "targets": ["Atlas", "Nuri"], "reason": "two budgets"})
    count = engine.classify("Search Platform Team의 인원은 몇 명인가요?", [])
    assert count.signals["tier"] == "model" and "statistic (count)" in count.signals["tier_reason"]
    compare = engine.classify("Atlas와 Nuri의 2024년 예산을 비교해 줘", ["Atlas", "Nuri"])
    assert compare.signals["tier"] == "model" and "compares" in compare.signals["tier_reason"]
    assert len(stub.chat_requests) == 2


def test_unsure_offline_router_asks_the_model_with_only_the_entities_named(stub, tmp_path):
    stub.add({"strategy": "graph", "reason": "asks about an entity of the graph"})
    engine = make_engine(stub, tmp_path)
    decision = engine.classify("Tell me about Orbit", ["CRAG", "Orbit", "Atlas", "Minji Park"])
    assert decision.strategy == "graph" and len(decision.calls) == 1 and len(stub.chat_requests) == 1
    assert decision.signals["tier"] == "model" and decision.signals["offline_suggestion"] == "vector"
    assert decision.signals["tier_reason"].startswith("no offline rule matched")
    system = decision.calls[0].prompt[0]["content"]
    assert "Known graph entities: Orbit" in system and "Minji Park" not in system  # not the whole graph each time


def test_model_routing_setting_always_asks_the_model(stub, tmp_path):
    stub.add({"strategy": "graph", "reason": "relation"})
    engine = make_engine(stub, tmp_path, llm_routing="model")
    decision = engine.classify("Nuri-LM을 개발한 조직은 어느 도시에 있나요?", ["Nuri-LM", "Hanbit Research"])
    assert len(decision.calls) == 1 and decision.signals["tier"] == "model"
    assert "Hanbit Research" in decision.calls[0].prompt[0]["content"]


def test_quality_is_computed_from_the_grades_without_a_call(stub, tmp_path):
    engine = make_engine(stub, tmp_path)
    grades = [Grade("correct", 0.9, "states it"), Grade("incorrect", 0.1, "salary")]
    quality = engine.evaluate("2023년 최저임금은 얼마인가?", [WAGE, SALARY], grades)
    expected = OfflineEngine(engine.settings).evaluate("2023년 최저임금은 얼마인가?", [WAGE, SALARY], grades)
    assert quality.score == expected.score and quality.calls == [] and stub.chat_requests == []
    assert quality.reason.startswith("computed from the grades, no model call")


def test_describe_shows_the_per_role_models_and_modes(stub, tmp_path):
    info = make_engine(stub, tmp_path, llm_grading="parallel").describe()
    assert (info["router_model"], info["grader_model"], info["generator_model"]) == ("router-m", "grader-m", "writer-m")
    assert (info["grading"], info["routing"], info["quality"]) == ("parallel", "tiered", "grades")
    fallback = LLMEngine(Settings(data_dir=tmp_path, openai_api_key=API_KEY, router_model="small")).describe()
    assert fallback["grader_model"] == "small"  # no grader model set: the router model grades


def test_settings_reject_unknown_modes(tmp_path):
    with pytest.raises(ValueError, match="RAG_LLM_GRADING"):
        Settings(data_dir=tmp_path, llm_grading="sometimes")
    with pytest.raises(ValueError, match="RAG_LLM_ROUTING"):
        Settings(data_dir=tmp_path, llm_routing="coin")


# ---- the agent end to end: same answers and grades in every grading mode --------------------------------------
TEXTS = {
    "wage.md": "# 최저임금\n2023년 최저임금은 시간당 9,620원이다. 2022년에는 9,160원이었다.",
    "hr.txt": "임직원 연봉은 매년 3월에 계약을 갱신한다. 새 연봉은 3월 급여부터 적용된다.",
    "leave.md": "입사 1년 후 연차 휴가는 15일이다. 2년마다 1일씩 늘어난다.",
}


@pytest.fixture(scope="module")
def small_kb(tmp_path_factory):
    kb = build_kb(tmp_path_factory.mktemp("cost-kb"), TEXTS)
    yield kb
    kb.close()


def _fingerprint(run):
    return run.answer, run.path, [(d.attempt, d.id, d.grade, d.grade_score) for d in run.documents if d.grade]


def test_agent_answers_and_grades_are_the_same_in_every_grading_mode(small_kb):
    question = "2023년 최저임금은 시간당 얼마인가요?"
    results = {}
    for mode in ("per_doc", "batch", "parallel"):
        with OpenAIStub(respond=scripted("good")) as server:
            settings = small_kb.settings.with_(engine="llm", openai_base_url=server.base_url, openai_api_key=API_KEY,
                                               llm_grading=mode, top_k=3)
            run = run_question(question, small_kb, LLMEngine(settings, max_retries=0), settings, "agentic")
            results[mode] = (run, [purpose_of(r.body) for r in server.chat_requests])
    assert results["batch"][0].error is None and results["batch"][0].stop_reason == "quality_met"
    assert _fingerprint(results["batch"][0]) == _fingerprint(results["per_doc"][0]) \
        == _fingerprint(results["parallel"][0])
    # the router model ('최저' reads as a statistic: maybe a table) + one batched grading call + the answer; the
    # context quality costs nothing
    assert results["batch"][1] == ["classify", "grade_batch", "answer"] and results["batch"][0].llm_calls == 3
    assert results["per_doc"][1].count("grade") == 3 and "quality" not in results["per_doc"][1]
    step = next(s for s in results["batch"][0].steps if s.node == "grade_documents")
    assert step.output["grading"] == {"mode": "batch", "reused": 0, "fallback_ids": []}
    classify = next(s for s in results["batch"][0].steps if s.node == "classify")
    assert classify.output["signals"]["tier"] == "model" and "statistic" in classify.output["signals"]["tier_reason"]


def test_the_fallback_is_recorded_in_the_agent_trace(small_kb):
    with OpenAIStub(respond=scripted("partial", drop=(1,))) as server:
        settings = small_kb.settings.with_(engine="llm", openai_base_url=server.base_url, openai_api_key=API_KEY,
                                           top_k=3)
        run = run_question("2023년 최저임금은 시간당 얼마인가요?", small_kb, LLMEngine(settings, max_retries=0),
                           settings, "agentic")
    step = next(s for s in run.steps if s.node == "grade_documents")
    assert len(step.output["grading"]["fallback_ids"]) == 1 and "graded those one by one" in step.reason
    assert [c.purpose for c in step.model_calls] == ["grade", "grade"]
    assert "incomplete output" in step.model_calls[0].error


# ---- fallbacks of the cheaper paths --------------------------------------------------------------------------
def test_unusable_router_reply_in_the_model_tier_falls_back_to_vector_and_says_so(stub, tmp_path):
    stub.add("route it wherever you like")
    decision = make_engine(stub, tmp_path).classify("Tell me about Orbit", ["Orbit"])
    assert decision.strategy == "vector" and "safe default" in decision.reason
    assert decision.signals["tier"] == "model" and decision.signals["fallback"] is True
    assert "malformed output" in decision.calls[0].error


def test_parallel_mode_keeps_the_per_document_safe_default(stub, tmp_path):
    def respond(body):
        text = body["messages"][-1]["content"]
        return "not a grade" if "연봉" in text else scripted("good")(body)

    stub.respond = respond
    grades, _ = make_engine(stub, tmp_path, llm_grading="parallel").grade_all("2023년 최저임금은?", DOCS)
    assert [g.label for g in grades] == ["correct", "ambiguous", "incorrect"]
    assert grades[1].score == 0.5 and "safe default" in grades[1].reason and grades[1].calls[0].error


def test_a_table_question_routed_to_sql_by_the_offline_tier_is_confident():
    from rag.engines.tiers import offline_is_confident
    from rag.types import Decision

    sql = Decision("sql", "aggregate question over table staff → sql", signals={"rule": "default"}, kind="aggregate")
    assert offline_is_confident("부서별 평균 연봉은?", sql)[0]
    guess = Decision("vector", "no pattern", signals={"rule": "default", "entities": ["Orbit"]})
    assert not offline_is_confident("Tell me about Orbit", guess)[0]


def test_query_vectors_are_remembered(tmp_path):
    from rag.embeddings import get_embedder
    from rag.engines.tiers import MemoQueryEmbedder

    settings = Settings(data_dir=tmp_path)
    memo = MemoQueryEmbedder(settings, size=2)
    inner = get_embedder(settings)
    asked: list[str] = []

    class Counting:  # the real embedder, counted
        name, dim = inner.name, inner.dim

        def embed_query(self, text):
            asked.append(text)
            return inner.embed_query(text)

    memo._inner = Counting()
    first = memo.embed_query("staff table")
    assert memo.embed_query("staff table") == first and asked == ["staff table"]
    memo.embed_query("b"), memo.embed_query("c")  # size 2: "staff table" is forgotten
    memo.embed_query("staff table")
    assert asked == ["staff table", "b", "c", "staff table"] and memo.name == inner.name


def test_a_mixed_engine_with_an_llm_grader_keeps_batched_grading(stub, tmp_path):
    """RAG_ROLES=grader=llm: the role bundle passes the grader's one-call grading on (not one call per document)."""
    from rag.engines.roles import RoleEngine

    stub.respond = scripted("good")
    llm = make_engine(stub, tmp_path)
    mixed = RoleEngine({"grader": llm}, default=OfflineEngine(Settings(data_dir=tmp_path)))
    grades, info = mixed.grade_all("2023년 최저임금은 얼마인가?", DOCS)
    assert [g.label for g in grades] == ["correct", "ambiguous", "incorrect"]
    assert [purpose_of(r.body) for r in stub.chat_requests] == ["grade_batch"]
    offline_only = RoleEngine({}, default=OfflineEngine(Settings(data_dir=tmp_path)))
    assert not hasattr(offline_only, "grade_all")  # graded one by one by the agent, as before
