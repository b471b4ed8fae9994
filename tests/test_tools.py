"""Retrieval tools on a real knowledge base: hybrid vector search, k-hop graph facts, web without a key."""
from __future__ import annotations

import pytest

from rag.tools import TOOLS
from rag.types import RetrievalTool, ToolUnavailable
from tests.support.kb import build_kb, make_settings

DOCS = {
    "orion.md": "# Orion-3\n\nThe Orion-3 model was developed by Helix Labs. Orion-3 uses bge-reranker-v2-m3 "
                "for reranking search results.",
    "helix.txt": "Helix Labs is headquartered in Busan. In 2020, Jane Doe founded Helix Labs.",
    "nova.md": "노바-7 모델은 에이펙스 랩스가 개발했다. 노바-7은 한국어 문서 요약에 쓰인다.",
    "apex.md": "에이펙스 랩스의 본사는 판교에 있다. 에이펙스 랩스는 2019년에 설립되었다.",
    "wage.txt": "2023년 최저임금은 시간당 9,620원이다. 최저임금위원회가 매년 결정한다.",
    "salary.txt": "연봉 계약은 매년 3월에 갱신한다. 새 연봉은 3월 급여부터 적용된다.",
    "alibaba.txt": "阿里巴巴的总部位于杭州。通义千问是阿里巴巴开发的大语言模型。",
    "weather.txt": "The weather in Busan is mild in winter. Many tourists visit the beaches in summer.",
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    kb = build_kb(tmp_path_factory.mktemp("tools-kb"), DOCS)
    yield kb
    kb.close()


def test_registry_builds_every_tool_behind_the_protocol(kb):
    assert set(TOOLS) == {"vector", "graph", "web", "sql"}
    tools = kb.tools()
    assert set(tools) == set(TOOLS)
    for name, tool in tools.items():
        assert isinstance(tool, RetrievalTool) and tool.name == name
    assert kb.tools() is tools  # built once


@pytest.mark.parametrize("query, source", [
    ("2023년 최저임금은 얼마인가요?", "wage.txt"),
    ("연봉 계약은 언제 갱신하나요?", "salary.txt"),
    ("What does Orion-3 use for reranking?", "orion.md"),
    ("Where is Helix Labs headquartered?", "helix.txt"),
    ("阿里巴巴的总部在哪里？", "alibaba.txt"),
    ("bge-reranker-v2-m3", "orion.md"),
])
def test_hybrid_search_finds_the_right_chunk_in_each_language(kb, query, source):
    results = kb.tools()["vector"].run(query, 3)
    assert results[0].source == source
    top = results[0]
    assert top.tool == "vector" and top.id == f"{top.doc_id}:{top.chunk_index}"
    assert kb.get_chunk(top.id).text == top.text
    # fused scores, best first, with both rankings' evidence kept for the grader
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)
    assert top.metadata["dense_rank"] is not None and top.metadata["bm25_rank"] is not None
    # RRF over the rankings: dense, BM25, the sentence channel (issue 8, counted SENTENCE_WEIGHT times) and the
    # name channel (names across scripts, NAME_WEIGHT times), each where it found the chunk
    from rag.tools.vector import NAME_WEIGHT, SENTENCE_WEIGHT

    weights = {"dense_rank": 1.0, "bm25_rank": 1.0, "sentence_rank": SENTENCE_WEIGHT, "name_rank": NAME_WEIGHT}
    ranks = [(w, top.metadata[k]) for k, w in weights.items() if top.metadata[k] is not None]
    assert top.score == pytest.approx(sum(w / (60 + r) for w, r in ranks), abs=1e-6)
    for r in results:
        assert 0.0 < r.metadata["dense_similarity"] <= 1.0
        assert r.metadata["bm25_score"] >= 0.0


def test_a_similar_but_wrong_chunk_ranks_below_the_right_one(kb):
    # "salary contract" is close in meaning to a minimum-wage question; key terms still pick the wage fact
    results = kb.tools()["vector"].run("2023년 최저임금", len(DOCS))
    sources = [r.source for r in results]
    wage, salary = results[sources.index("wage.txt")], results[sources.index("salary.txt")]
    assert sources[0] == "wage.txt"
    assert wage.metadata["bm25_score"] > salary.metadata["bm25_score"]
    assert wage.metadata["dense_similarity"] > salary.metadata["dense_similarity"]


def test_bm25_index_follows_changes_of_the_knowledge_base(tmp_path):
    kb = build_kb(tmp_path / "kb", {"a.txt": "Quasar-9 is a telescope in Chile."})
    tool = kb.tools()["vector"]
    assert tool.run("Zephyr-5", 1)[0].metadata["bm25_score"] == 0.0
    kb.ingest_bytes("b.txt", b"Zephyr-5 is a rocket engine.")
    top = tool.run("Zephyr-5", 1)[0]
    assert top.source == "b.txt" and top.metadata["bm25_score"] > 0.0
    kb.delete(top.doc_id)
    assert [r.source for r in tool.run("Zephyr-5", 3)] == ["a.txt"]
    kb.close()


def test_bm25_index_is_built_from_the_tokens_stored_when_the_chunks_were_written(kb):
    from rag.romanize import index_tokens
    from rag.tools.vector import VectorTool
    from rag.vectorstore import TokenCache, text_hash

    cache = kb.vectors.token_cache
    chunks = kb.vectors.all_chunks()
    hashes = [text_hash(c.text) for c in chunks]
    # stored at ingest: the BM25 tokens, then the name keys
    assert cache.lookup(hashes) == {h: index_tokens(c.text) for h, c in zip(hashes, chunks)}
    weather = next(c for c in chunks if c.source == "weather.txt")
    try:
        # a token only the cache knows: found only if the rebuilt index reads the cache (no tokenizing again)
        cache.store({(text_hash(weather.text), weather.doc_id): ["qqcachedtoken"]})
        top = VectorTool(kb, kb.settings).run("qqcachedtoken", 1)[0]
        assert top.id == weather.chunk_id and top.metadata["bm25_rank"] == 1
        # chunks whose tokens are not cached (written before the cache existed) are tokenized at the rebuild
        cache.clear()
        assert VectorTool(kb, kb.settings).run("Busan tourists beaches", 1)[0].source == "weather.txt"
        assert set(cache.lookup(hashes)) == set(hashes)
        # tokens of another tokenizer version are never reused
        with __import__("sqlite3").connect(cache.path) as conn:
            conn.execute("UPDATE meta SET value = 'older' WHERE key = 'tokenizer'")
        assert TokenCache(cache.path).lookup(hashes) == {}
    finally:
        cache.tokens_for([c.text for c in chunks], [c.doc_id for c in chunks])


@pytest.mark.parametrize("seed", range(5))
def test_bm25_top_n_equals_a_full_sort_with_ties_in_index_order(seed):
    import numpy as np

    from rag.tools.vector import top_positive

    rng = np.random.default_rng(seed)
    scores = rng.choice([0.0, 0.5, 1.25, 2.0, 3.5], size=300) * rng.choice([1.0, 1.0, 0.5], size=300)
    for n in (1, 7, 20, 299, 300, 400):
        full = [i for i in sorted(range(len(scores)), key=lambda i: (-scores[i], i)) if scores[i] > 0][:n]
        assert top_positive(scores, n) == full
    assert top_positive(np.zeros(5), 3) == [] and top_positive(np.array([]), 3) == []


def test_vector_tool_on_an_empty_knowledge_base(tmp_path):
    kb = build_kb(tmp_path / "empty")
    ok, reason = kb.tools()["vector"].available()
    assert not ok and "empty" in reason
    assert kb.tools()["vector"].run("anything", 3) == []
    ok, reason = kb.tools()["graph"].available()
    assert not ok and "no facts" in reason
    assert kb.tools()["graph"].run("Helix Labs", 3) == []


def test_graph_expands_two_hops_across_documents_with_evidence(kb):
    results = kb.tools()["graph"].run("Where is the company that developed Orion-3 headquartered?", 4)
    by_triple = {tuple(r.metadata["triple"]): r for r in results}
    first = by_triple[("Orion-3", "developed_by", "Helix Labs")]
    second = by_triple[("Helix Labs", "located_in", "Busan")]
    assert first.metadata["hop"] == 1 and second.metadata["hop"] == 2
    assert first.score > second.score
    assert "Orion-3" in first.metadata["question_entities"]
    # each fact carries its own sentence and file
    assert first.source == "orion.md" and "developed by Helix Labs" in first.text
    assert second.source == "helix.txt" and second.metadata["evidence"] == "Helix Labs is headquartered in Busan."
    assert second.doc_id != first.doc_id
    assert kb.get_chunk(second.metadata["chunk_id"]).source == "helix.txt"
    assert all(r.tool == "graph" and r.id.startswith("rel:") for r in results)
    # scores never increase with the hop
    hops = [r.metadata["hop"] for r in sorted(results, key=lambda r: -r.score)]
    assert hops == sorted(hops)


def test_graph_two_hops_in_korean(kb):
    results = kb.tools()["graph"].run("노바-7을 개발한 회사의 본사는 어디에 있나요?", 4)
    triples = {tuple(r.metadata["triple"]): r.metadata["hop"] for r in results}
    assert triples[("노바-7", "developed_by", "에이펙스 랩스")] == 1
    assert triples[("에이펙스 랩스", "located_in", "판교")] == 2


def test_graph_ids_are_stable(kb):
    one = [r.id for r in kb.tools()["graph"].run("Helix Labs", 4)]
    two = [r.id for r in kb.tools()["graph"].run("Helix Labs", 4)]
    assert one == two and len(set(one)) == len(one)


def test_graph_respects_the_hop_setting(tmp_path, kb):
    from rag.tools.graph import GraphTool

    one_hop = GraphTool(kb, kb.settings.with_(graph_hops=1))
    # a question that asks one relation stays within the setting
    results = one_hop.run("Which company developed Orion-3?", 6)
    assert results and {r.metadata["hop"] for r in results} == {1}
    # a question that asks a chain of relations (developed_by, then located_in) is followed that far, up to
    # rag.tools.graph.MAX_HOPS, whatever the setting (issue 8: "the company that developed X" is one hop more)
    results = one_hop.run("Where is the company that developed Orion-3 headquartered?", 6)
    assert {r.metadata["hop"] for r in results} == {1, 2}


def test_an_unreachable_neo4j_is_reported_once_as_unavailable(kb):
    from rag.kb import KnowledgeBase
    from rag.variants.base import retrieve_with

    down = KnowledgeBase(kb.settings.with_(neo4j_uri="bolt://127.0.0.1:1", neo4j_password="x"))
    try:
        ok, why = down.tools()["graph"].available()
        assert not ok and "Neo4j at bolt://127.0.0.1:1 is not reachable" in why and "unavailable" not in why
        note = retrieve_with(down.tools(), "graph", "Helix Labs", 3).note
        assert note.startswith("the graph tool is unavailable: Neo4j at bolt://127.0.0.1:1")
        assert note.count("unavailable") == 1, note
    finally:
        down.close()


def test_web_without_a_key_is_unavailable_and_never_substituted(kb):
    web = kb.tools()["web"]
    assert web.available() == (False, "web search not configured: set TAVILY_API_KEY")
    with pytest.raises(ToolUnavailable, match="TAVILY_API_KEY"):
        web.run("오늘 환율", 3)


def test_web_with_a_key_reports_available(tmp_path):
    from rag.tools.web import WebTool

    tool = WebTool(None, make_settings(tmp_path / "w", tavily_api_key="tvly-test"))
    assert tool.available()[0] is True


def test_graph_cues_are_words_not_parts_of_words():
    """A Latin cue counts as a word or its inflection, never inside another word: "because" asks no `uses`,
    "headquartered" asks `located_in` but no `leads` ("head")."""
    from rag.tools.graph import asked_predicates

    assert asked_predicates("Why did the build fail because of the cache?") == set()
    assert asked_predicates("Where is the vendor headquartered?") == {"located_in"}
    assert asked_predicates("Who leads the group that built the planner?") == {"leads", "developed_by"}
    assert asked_predicates("Which service used the planner?") == {"uses"}
    assert asked_predicates("플래너를 만든 팀의 팀장은 누구야?") == {"leads", "developed_by"}
