"""Streaming the generator's tokens (issue 11): through LangGraph's ``messages`` mode and the real langchain-openai
client against the stub's server-sent events; steps still land live; tokens are still counted; the CLI's --stream;
and cost accounting per role with a price table."""
from __future__ import annotations

import pytest

from rag import cli
from rag.cost import format_usd, parse_prices, run_cost
from rag.engines.llm import LLMEngine
from rag.streaming import JsonTextStream, stream_tokens
from rag.types import ModelCall, RagError
from rag.variants import run_question
from tests.support.kb import build_kb
from tests.support.openai_stub import OpenAIStub
from tests.test_llm_cost import API_KEY, TEXTS, scripted

QUESTION = "2023년 최저임금은 시간당 얼마인가요?"


@pytest.fixture(scope="module")
def stream_kb(tmp_path_factory):
    kb = build_kb(tmp_path_factory.mktemp("stream-kb"), TEXTS)
    yield kb
    kb.close()


def test_json_text_stream_passes_on_only_the_text_of_values():
    reader = JsonTextStream()
    text = '{"conclusion": "시간당 \\"9,620\\"원 \\u00e9", "evidence": ["a [1]"], "citations": [1], "uncertainty": ""}'
    shown = "".join(reader.feed(text[i:i + 5]) for i in range(0, len(text), 5))
    assert shown == '시간당 "9,620"원 é\na [1]\n'


@pytest.mark.parametrize("variant", ["agentic", "naive"])
def test_answer_tokens_stream_while_steps_still_land_live(stream_kb, variant):
    with OpenAIStub(respond=scripted("good")) as server:
        settings = stream_kb.settings.with_(engine="llm", openai_base_url=server.base_url, openai_api_key=API_KEY,
                                            top_k=3)
        pieces: list[str] = []
        seen: list[tuple[str, int]] = []
        with stream_tokens(pieces.append):
            run = run_question(QUESTION, stream_kb, LLMEngine(settings, max_retries=0), settings, variant,
                               on_step=lambda step: seen.append((step.node, len(pieces))))
        streamed = [r.body.get("stream") for r in server.chat_requests]
    assert run.error is None and "9,620" in run.answer
    assert len(pieces) > 2 and "".join(pieces).startswith("2023년 최저임금은 시간당 9,620원입니다.")
    assert seen[0][1] == 0 and seen[-1][0] == "generate" and seen[-1][1] == len(pieces)  # text before the step
    assert all(streamed)
    generate = next(c for c in run.model_calls if c.purpose == "generate")
    assert generate.prompt_tokens > 0 and generate.completion_tokens > 0 and generate.error is None
    assert "{" not in "".join(pieces)  # the JSON's syntax never reaches the reader


def test_without_a_sink_nothing_streams(stream_kb):
    with OpenAIStub(respond=scripted("good")) as server:
        settings = stream_kb.settings.with_(engine="llm", openai_base_url=server.base_url, openai_api_key=API_KEY)
        run_question(QUESTION, stream_kb, LLMEngine(settings, max_retries=0), settings, "agentic")
        assert not any(r.body.get("stream") for r in server.chat_requests)


def test_cli_ask_stream_and_the_cache_line(data_dir, monkeypatch, capfd):
    kb = build_kb(data_dir, TEXTS)
    kb.close()
    with OpenAIStub(respond=scripted("good")) as server:
        server.stream_delay_s = 0.005
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
        monkeypatch.setenv("RAG_LLM_RETRIES", "0")
        assert cli.main(["ask", QUESTION, "--stream"]) == 0
        first = capfd.readouterr().out
        requests = len(server.chat_requests)
        assert cli.main(["ask", QUESTION]) == 0
        second = capfd.readouterr().out
        assert len(server.chat_requests) == requests  # served from the answer cache
        assert cli.main(["ask", QUESTION, "--no-cache"]) == 0
        assert len(server.chat_requests) > requests
    streamed, _, formatted = first.partition("\n\n")
    assert streamed.startswith("2023년 최저임금은 시간당 9,620원입니다.") and "9,620" in formatted
    assert "answer cache: same question as run" in second and "0 model calls" in second


# ---- cost accounting ------------------------------------------------------------------------------------------
def _call(model: str, purpose: str, p: int, c: int) -> ModelCall:
    return ModelCall(model=model, purpose=purpose, prompt=[], raw_output="", prompt_tokens=p, completion_tokens=c)


def test_tokens_and_money_per_role():
    calls = [_call("small", "classify", 300, 10), _call("small", "grade", 500, 40), _call("big", "generate", 600, 50)]
    cost = run_cost(calls, "small=0.15/0.60,big=2.5/10")
    assert list(cost["by_role"]) == ["router", "grader", "generator"]
    assert cost["by_role"]["grader"] == {"calls": 1, "input": 500, "output": 40, "models": ["small"],
                                         "usd": round((500 * 0.15 + 40 * 0.6) / 1e6, 8)}
    expected = (300 * 0.15 + 10 * 0.6 + 500 * 0.15 + 40 * 0.6 + 600 * 2.5 + 50 * 10) / 1e6
    assert cost["usd"] == pytest.approx(expected) and cost["complete"] and cost["unpriced"] == []
    partial = run_cost(calls, "small=0.15/0.60")
    assert partial["unpriced"] == ["big"] and not partial["complete"] and partial["by_role"]["generator"]["usd"] is None
    assert run_cost(calls, None)["usd"] is None and run_cost(calls, "*=1/1")["usd"] == pytest.approx(1500 / 1e6)
    assert "price_error" in run_cost(calls, "small=cheap")
    assert format_usd(None) == "–" and format_usd(0.000123) == "$0.000123"


def test_price_table_errors_say_what_to_write():
    with pytest.raises(RagError, match="model=input/output"):
        parse_prices("gpt-4o-mini=0.15")


def test_every_run_records_tokens_per_role(stream_kb):
    with OpenAIStub(respond=scripted("good")) as server:
        settings = stream_kb.settings.with_(engine="llm", openai_base_url=server.base_url, openai_api_key=API_KEY,
                                            llm_prices="*=1/2")
        run = run_question(QUESTION, stream_kb, LLMEngine(settings, max_retries=0), settings, "agentic")
    cost = run.to_dict()["totals"]["cost"]
    assert set(cost["by_role"]) == {"router", "grader", "generator"} and cost["usd"] > 0  # '최저': the model routes
    assert sum(r["input"] for r in cost["by_role"].values()) == run.tokens["prompt"]


def test_money_per_variant_of_an_evaluation(stream_kb):
    from rag.cost import variant_costs

    with OpenAIStub(respond=scripted("good")) as server:
        settings = stream_kb.settings.with_(engine="llm", openai_base_url=server.base_url, openai_api_key=API_KEY)
        engine = LLMEngine(settings, max_retries=0)
        runs = {v: run_question(QUESTION, stream_kb, engine, settings, v) for v in ("naive", "agentic")}
    rows = [{"variant": v, "run_id": r.run_id} for v, r in runs.items()]
    table = {r["variant"]: r for r in variant_costs(rows, lambda rid: next(x for x in runs.values()
                                                                             if x.run_id == rid), "*=1/2")}
    for name, run in runs.items():
        assert table[name]["model calls"] == run.llm_calls and table[name]["input tokens"] == run.tokens["prompt"]
        expected = (run.tokens["prompt"] * 1 + run.tokens["completion"] * 2) / 1e6
        assert table[name]["usd"] == pytest.approx(expected) and table[name]["usd per question"] == pytest.approx(expected)
    assert "grader" in table["agentic"]["tokens per role (in/out)"]
    assert variant_costs(rows, lambda rid: runs["naive"] if rid == runs["naive"].run_id else runs["agentic"],
                         None)[0]["usd"] is None  # no price table: no money figure
