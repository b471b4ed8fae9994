"""Issue 8: the agent's search of the other languages (and the vector tool's search of one language only, which the
agent uses for the question's own: tests/test_own_language_search.py).

A mixed search ranks documents in the question's own language above the right one in another language (the
multilingual embedder scores same-language text higher, BM25 matches the question's own words only). When a vector
attempt falls short and the knowledge base also holds documents in other languages, the agent searches those on
their own. The offline engine cannot check key terms there: it answers from such a document only when exactly one
document graded correct holds typed evidence (a sentence matching by meaning that states a value of the asked kind,
with the question's numbers); otherwise it lists what it found as matched by meaning only (a partial answer). An
engine that reads both languages (the llm engine) may answer.

Documents written for this test: English pages about a made-up coworking building (rooms, desks, parking, events:
neighbouring topics with capacities and hours) and one Korean page about its rooftop garden, which alone answers
"How many people can the rooftop garden hold at once?".
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.llm import LLMEngine
from rag.engines.offline import OfflineEngine
from rag.textutil import dominant_language
from rag.tools.vector import VectorTool
from rag.types import Retrieved, Typed
from rag.variants import run_question
from rag.variants.agentic import decide_next, other_languages_to_search
from rag.variants.base import OTHER_LANGUAGES, Hop

GARDEN_KO = ("# 수영장 이용 안내\n\n"
             "수영장은 평일 밤 9시에 문을 닫는다.\n"
             "수영장에 들어가기 전에 샤워를 해야 한다.\n")
ENGLISH = {
    "meeting_rooms_en.md": ("# Meeting rooms\n\nThe large meeting room holds up to 20 people.\n"
                            "Small rooms hold four people and can be booked for two hours at a time.\n"),
    "hot_desks_en.md": ("# Hot desks\n\nThe open floor has 60 hot desks.\n"
                        "Members can stay at a hot desk for the whole day.\n"),
    "events_en.md": ("# Event hall\n\nThe event hall seats 120 people for talks.\n"
                     "Events must end by 10 pm so that neighbours are not disturbed.\n"),
    "parking_en.md": ("# Parking\n\nThe basement car park has 40 spaces for members.\n"
                      "Visitors may park for up to three hours.\n"),
    "kitchen_en.md": ("# Shared kitchen\n\nThe kitchen can be used by up to 12 people at once.\n"
                      "Please label food kept in the fridge.\n"),
    "gym_en.md": ("# Gym\n\nThe gym on the second floor closes at 11 pm on weekdays.\n"
                  "Towels are handed out at the gym desk.\n"),
    "cafe_en.md": ("# Ground-floor cafe\n\nThe cafe closes at 6 pm on weekdays and at 3 pm on Saturdays.\n"
                   "Members get a 10 percent discount.\n"),
    "reception_en.md": ("# Reception\n\nReception is staffed until 7 pm on weekdays.\n"
                        "After that, visitors call the member they are visiting.\n"),
}
# other Korean pages of the same building, on topics no question here asks about: enough Korean sentences for the
# per-language statistics of the sentence channel (a real knowledge base has them)
KOREAN = {
    "building_rules_ko.md": ("# 건물 이용 규칙\n\n건물 안에서는 담배를 피울 수 없다.\n"
                             "반려동물은 건물에 데려올 수 없다.\n자전거는 지하 보관소에 둔다.\n"
                             "밤 11시 이후에는 출입 카드를 찍어야 문이 열린다.\n"
                             "분실물은 안내 데스크에서 한 달 동안 보관한다.\n"),
    "membership_ko.md": ("# 회원 안내\n\n월 회원권은 매달 1일에 자동으로 갱신된다.\n"
                         "회원권을 해지하려면 일주일 전까지 알려야 한다.\n학생은 신분증을 보여 주면 할인을 받는다.\n"
                         "회원 카드를 잃어버리면 다시 발급받는 데 사흘이 걸린다.\n"
                         "회원 정보는 누리집에서 바꿀 수 있다.\n"),
    "cleaning_ko.md": ("# 청소와 쓰레기\n\n청소는 매일 아침 7시에 한다.\n"
                       "음식물 쓰레기는 주방 옆 통에 따로 버린다.\n재활용품은 종류별로 나누어 버린다.\n"
                       "큰 짐은 관리실에 미리 말하고 버린다.\n화장실 비품이 떨어지면 관리실에 알린다.\n"),
    "wifi_ko.md": ("# 무선 인터넷\n\n무선 인터넷 비밀번호는 매주 월요일에 바뀐다.\n"
                   "새 비밀번호는 안내 데스크 화면에 나온다.\n프린터는 3층 복도 끝에 있다.\n"
                   "인쇄는 한 달에 100장까지 무료다.\n인터넷이 느리면 관리실에 신고한다.\n"),
}
TEXTS = {"swimming_pool_ko.md": GARDEN_KO, **KOREAN, **ENGLISH}
QUESTION = "What time does the swimming pool close on weekdays?"


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("other-languages"), TEXTS, top_k=2)
    yield kb
    kb.close()


@pytest.fixture(scope="module")
def tool(kb):
    return VectorTool(kb, kb.settings)


@pytest.mark.parametrize("text, lang", [
    ("The Halla clinic (한라동물의료원) opens at 9 am on weekdays and closes at 8 pm.", "en"),  # a name in Hangul
    ("한라동물의료원(Halla Animal Medical Center)은 9시에 연다.", "ko"),
    ("汉拿动物医疗中心（한라동물의료원）上午九点开门。", "zh"),
    ("", "en"),
])
def test_dominant_language(text, lang):
    assert dominant_language(text) == lang


def test_languages_counts_the_chunks_of_each_language(tool):
    counts = tool.languages()
    assert counts.get("ko") == 1 + len(KOREAN) and counts.get("en", 0) >= len(ENGLISH)


def test_search_of_the_other_languages_returns_only_them(tool):
    mixed = tool.run(QUESTION, 2)
    assert all(d.source != "swimming_pool_ko.md" for d in mixed), "premise: the mixed search misses the garden"
    other = tool.run(QUESTION, 2, exclude_language="en")
    assert other and all(dominant_language(d.text) != "en" for d in other)
    assert other[0].source == "swimming_pool_ko.md"
    # ranked by the sentence and name channels only (no dense or BM25 rank), yet the grader gets its similarity
    for doc in other:
        meta = doc.metadata
        assert meta["dense_rank"] is None and meta["bm25_rank"] is None
        assert meta["sentence_rank"] is not None or meta["name_rank"] is not None
        assert meta["dense_similarity"] > 0
    rest = tool.run(QUESTION, 2, exclude_language="en", exclude_ids=[other[0].id])
    assert other[0].id not in {d.id for d in rest} and all(dominant_language(d.text) == "ko" for d in rest)


def test_search_of_the_own_language_returns_only_it(tool):
    own = tool.run(QUESTION, 2, only_language="ko")
    assert own and all(dominant_language(d.text) == "ko" for d in own)
    assert own[0].source == "swimming_pool_ko.md"
    # every channel votes within the language (dense and BM25 ranks are kept, unlike the other-language search)
    assert own[0].metadata["dense_rank"] == 1
    rest = tool.run(QUESTION, 2, only_language="ko", exclude_ids=[own[0].id])
    assert rest and own[0].id not in {d.id for d in rest} and all(dominant_language(d.text) == "ko" for d in rest)


def _hop(number, quality, scope="", elsewhere=(), meaning_only=False, strategy="vector", query="q", typed=()):
    return Hop(number=number, strategy=strategy, query=query, quality=quality, scope=scope,
               elsewhere=tuple(elsewhere), meaning_only=meaning_only,
               typed=tuple(Typed(t, 0.8) for t in typed),
               docs=[Retrieved(id=f"{number}", text="t", source="s", score=1.0, tool=strategy)])


def test_decide_next_searches_the_other_languages_once_before_the_graph():
    first = _hop(1, 0.2, elsewhere=("ko",))
    action, strategy, reason, stop = decide_next([first], 0.6, 3)
    assert (action, strategy, stop) == ("rewrite_query", "vector", "") and "ko" in reason
    assert other_languages_to_search([first]) == ("ko",)
    # the same query with another scope is no repetition; after it, the graph is next
    second = _hop(2, 0.2, scope=OTHER_LANGUAGES)
    assert decide_next([first, second], 0.6, 3)[:2] == ("re_route", "graph")
    # a knowledge base in the question's language only: straight to the graph, as before
    assert decide_next([_hop(1, 0.2)], 0.6, 3)[:2] == ("re_route", "graph")


def test_decide_next_never_answers_confidently_from_meaning_alone():
    first = _hop(1, 0.2, elsewhere=("ko",))
    judged = _hop(2, 0.9, scope=OTHER_LANGUAGES, meaning_only=True)
    action, _, reason, stop = decide_next([first, judged], 0.6, 3)
    assert (action, stop) == ("partial_answer", "meaning_only") and "meaning" in reason
    # several documents state a value of the asked kind: meaning cannot tell which one is asked
    rivals = _hop(2, 0.9, scope=OTHER_LANGUAGES, meaning_only=True, typed=("fees_ko.md", "guide_zh.md"))
    action, _, reason, stop = decide_next([first, rivals], 0.6, 3)
    assert (action, stop) == ("partial_answer", "meaning_only")
    assert "2 documents state a value of the asked kind" in reason and "fees_ko.md" in reason
    # the quality must pass first: typed evidence below the threshold does not answer
    weak = _hop(2, 0.4, scope=OTHER_LANGUAGES, meaning_only=True, typed=("fees_ko.md",))
    assert decide_next([first, weak], 0.6, 3)[0] != "generate"


def test_decide_next_answers_from_the_one_document_with_typed_evidence():
    first = _hop(1, 0.2, elsewhere=("ko",))
    typed = _hop(2, 0.9, scope=OTHER_LANGUAGES, meaning_only=True, typed=("fees_ko.md",))
    action, _, reason, stop = decide_next([first, typed], 0.6, 3)
    assert (action, stop) == ("generate", "typed_evidence")
    assert "fees_ko.md" in reason and "typed evidence" in reason
    checked = _hop(2, 0.9, scope=OTHER_LANGUAGES, meaning_only=False)  # an engine that reads the language
    assert decide_next([first, checked], 0.6, 3)[0] == "generate"
    assert LLMEngine.checks_other_languages and not getattr(OfflineEngine, "checks_other_languages", False)


def test_agent_searches_the_other_languages_and_says_what_it_matched_by_meaning(kb):
    engine = OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1))
    run = run_question(QUESTION, kb, engine, kb.settings)
    assert run.error is None, run.error
    steps = [s for s in run.steps if s.node == "retrieve_vector"]
    assert len(steps) == 2, run.path
    assert "exclude_language" not in steps[0].inputs
    assert steps[1].inputs["exclude_language"] == "en" and steps[1].inputs["excluded_ids"] == 2
    assert any(d.source == "swimming_pool_ko.md" for d in steps[1].documents)
    rewrite = next(s for s in run.steps if s.node == "rewrite_query")
    assert rewrite.output["scope"] == OTHER_LANGUAGES and "ko" in rewrite.reason
    # one Korean document states a time of day in the sentence that matches by meaning: the agent answers from it,
    # and the answer says that the evidence was matched by meaning, in another language
    assert not run.partial and not run.abstained, run.answer
    assert run.stop_reason == "typed_evidence"
    evaluate = [s for s in run.steps if s.node == "evaluate_context"][-1]
    assert "swimming_pool_ko.md" in evaluate.reason and "typed evidence" in evaluate.reason
    assert run.answer.startswith("Conclusion: 수영장은 평일 밤 9시에 문을 닫는다.")
    assert "matched by meaning" in run.answer
    assert [c.source for c in run.citations] == ["swimming_pool_ko.md"]


def test_agent_lists_other_language_evidence_as_unconfirmed_when_no_sentence_states_the_asked_value(kb):
    # "How many people": the Korean pages state times and counts of other things, none a number of people that
    # matches by meaning; nothing may be answered confidently
    engine = OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1))
    run = run_question("How many people can the rooftop garden hold at once?", kb, engine, kb.settings)
    assert run.error is None, run.error
    assert run.partial or run.abstained, run.answer
