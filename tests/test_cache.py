"""The semantic answer cache (issue 11, seed 003) with a real knowledge base, the real embedder and the llm engine
through the real langchain-openai client against the stub: a repeated question costs no model call, and an
answer is never served after the documents it rests on changed."""
from __future__ import annotations

import pytest

from rag.cache import AnswerCache, ask, settings_key
from rag.engines.llm import LLMEngine
from rag.runstore import RunStore
from tests.support.kb import build_kb
from tests.support.openai_stub import OpenAIStub, batch_grades, purpose_of

API_KEY = "sk-" + "test-cache-0123456789abcdef"
TEXTS = {
    "wage.md": "# 최저임금\n2023년 최저임금은 시간당 9,620원이다. 2022년에는 9,160원이었다.",
    "hr.txt": "임직원 연봉은 매년 3월에 계약을 갱신한다. 새 연봉은 3월 급여부터 적용된다.",
}
QUESTION = "2023년 최저임금은 시간당 얼마인가요?"


def judge(text: str) -> tuple[str, float]:
    return ("correct", 0.9) if "9,620" in text else ("incorrect", 0.1)


def respond(body):
    """Grades by content; the answer cites document [1] and quotes the figure only when a document states it."""
    purpose = purpose_of(body)
    if purpose == "grade_batch":
        return batch_grades(body, judge)
    if purpose == "grade":
        return dict(zip(("label", "score"), judge(body["messages"][-1]["content"])), reason="scripted")
    if purpose == "classify":
        return {"strategy": "vector", "reason": "scripted"}
    if purpose == "partial":
        return {"found": [], "not_found": ["the 2023 figure"], "citations": [], "nothing_relevant": True}
    context = body["messages"][-1]["content"]
    found = "9,620" in context
    return {"conclusion": "시간당 9,620원입니다. [1]" if found else "문서에 없습니다.", "evidence": [],
            "citations": [1] if found else [], "uncertainty": "", "insufficient_evidence": not found}


@pytest.fixture
def stub():
    with OpenAIStub(respond=respond) as server:
        yield server


def setup(tmp_path, stub, **overrides):
    kb = build_kb(tmp_path / "kb", TEXTS)
    settings = kb.settings.with_(engine="llm", openai_base_url=stub.base_url, openai_api_key=API_KEY, top_k=2,
                                 **overrides)
    return kb, settings, LLMEngine(settings, max_retries=0), RunStore(settings.data_dir)


def test_repeated_question_is_a_hit_with_no_model_call_and_stale_answers_are_never_served(tmp_path, stub):
    kb, settings, engine, store = setup(tmp_path, stub)
    try:
        first = ask(QUESTION, kb, engine, settings, store=store)
        assert not first.cache and first.llm_calls >= 2 and "9,620" in first.answer
        requests = len(stub.chat_requests)

        again = ask(QUESTION, kb, engine, settings, store=store)
        assert again.cache["hit"] and again.cache["original_run_id"] == first.run_id
        assert again.llm_calls == 0 and again.steps == [] and len(stub.chat_requests) == requests
        assert again.answer == first.answer and [c.id for c in again.citations] == [c.id for c in first.citations]
        assert again.run_id != first.run_id and store.get(again.run_id).cache["original_run_id"] == first.run_id

        reworded = ask(QUESTION.replace("?", " ?"), kb, engine, settings, store=store)  # same meaning, other text
        assert reworded.cache.get("hit") and reworded.cache["similarity"] >= settings.cache_similarity

        cited = first.citations[0].doc_id
        assert kb.delete(cited)
        after = ask(QUESTION, kb, engine, settings, store=store)
        assert not after.cache, "an answer citing a deleted document was served from the cache"
        assert len(stub.chat_requests) > requests and "9,620" not in after.answer
        assert all(c.doc_id != cited for c in after.citations)
    finally:
        kb.close()


def test_bypass_other_settings_and_new_documents_miss(tmp_path, stub):
    kb, settings, engine, store = setup(tmp_path, stub)
    try:
        first = ask(QUESTION, kb, engine, settings)
        fresh = ask(QUESTION, kb, engine, settings, bypass=True)
        assert not fresh.cache and fresh.llm_calls > 0 and fresh.run_id != first.run_id

        stricter = settings.with_(threshold=0.9)
        assert settings_key(stricter, "agentic") != settings_key(settings, "agentic")
        assert not ask(QUESTION, kb, LLMEngine(stricter, max_retries=0), stricter).cache
        assert not ask(QUESTION, kb, engine, settings, variant="naive").cache  # the variant is part of the key
        assert ask(QUESTION, kb, engine, settings).cache.get("hit")
        # only how grading is spread over requests changed: the answer cannot, so the entry still serves
        assert ask(QUESTION, kb, engine, settings.with_(llm_grading="parallel")).cache.get("hit")

        assert ask("연봉 계약은 몇 월에 갱신해?", kb, engine, settings).cache == {}  # another question
        # another year embeds 0.98 alike, but its answer is another one: the numbers must match
        assert ask(QUESTION.replace("2023", "2022"), kb, engine, settings).cache == {}
        assert ask(QUESTION.replace("얼마인가요", "얼마예요"), kb, engine, settings).cache.get("hit")  # a rewording

        kb.ingest_bytes("leave.md", "입사 1년 후 연차 휴가는 15일이다.".encode())  # any ingest is a new revision
        assert not ask(QUESTION, kb, engine, settings).cache
    finally:
        kb.close()


def test_reset_clears_and_errors_are_not_cached(tmp_path, stub):
    kb, settings, engine, store = setup(tmp_path, stub)
    try:
        cache = AnswerCache(settings.data_dir)
        broken = settings.with_(openai_base_url="http://127.0.0.1:9/v1")  # nothing listens: the run fails
        run = ask(QUESTION, kb, LLMEngine(broken, max_retries=0), broken)
        assert run.error and cache.count() == 0
        ask(QUESTION, kb, engine, settings)
        assert cache.count() == 1
        kb.reset()
        assert not ask(QUESTION, kb, engine, settings).cache
    finally:
        kb.close()


def test_the_cache_can_be_switched_off(tmp_path, stub):
    kb, settings, engine, store = setup(tmp_path, stub, answer_cache=False)
    try:
        ask(QUESTION, kb, engine, settings)
        assert not ask(QUESTION, kb, engine, settings).cache
        assert AnswerCache(settings.data_dir).count() == 0
    finally:
        kb.close()
