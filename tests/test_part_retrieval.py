"""Issue 8: a question that asks several things ("조식은 몇 시부터야? 주차 요금은 하루에 얼마예요?") gets one sentence
ranking per asked part in retrieval's fusion (rag/tools/vector.py): one part's answer is often in another chunk than
the other's, and the whole question's vector sits between them. Each result says the rank a part gave it
(``part_rank``); a question that asks one thing gets no part rankings. Documents written for this test (a made-up
hotel, 보람 호텔), among documents on neighbouring topics in three languages."""
from __future__ import annotations

import pytest

from rag.tools.vector import _asked_parts

TEXTS = {
    "breakfast_ko.md": ("# 보람 호텔 식당 안내\n\n조식은 오전 7시부터 10시까지 2층 식당에서 제공한다.\n"
                        "석식은 예약한 투숙객에게만 제공한다.\n"),
    "parking_en.md": ("# Boram Hotel parking\n\nParking costs 12,000 won per day for hotel guests.\n"
                      "Electric vehicles charge for free in the basement.\n"),
    "spa_zh.md": "# 宝蓝酒店水疗中心\n\n水疗中心每天上午十点开放。\n住客享受八折优惠。\n",
    "checkin_en.md": ("# Check-in and check-out\n\nCheck-in starts at 3 pm and check-out is at 11 am.\n"
                      "Late check-out until 1 pm costs 30,000 won.\n"),
    "lounge_ko.md": "# 라운지 이용 안내\n\n라운지는 오후 6시부터 9시까지 연다.\n음료는 무료로 제공한다.\n",
    "fitness_en.md": ("# Fitness room\n\nThe fitness room on the 5th floor is open 24 hours.\n"
                      "Towels are provided at the entrance.\n"),
}


@pytest.fixture(scope="module")
def tool(tmp_path_factory):
    from tests.support.kb import vector_tool

    yield from vector_tool(tmp_path_factory.mktemp("part-retrieval"), TEXTS)


def test_each_part_ranks_the_chunk_that_answers_it(tool):
    question = "보람 호텔 조식은 몇 시부터야? 주차 요금은 하루에 얼마예요?"
    assert len(_asked_parts(question)) == 2
    results = tool.run(question, 4)
    by_source = {r.source: r for r in results}
    assert {"breakfast_ko.md", "parking_en.md"} <= set(by_source), [r.source for r in results]
    # each part's own ranking puts its chunk first; the whole question's sentence ranking can put only one of them
    # first (its vector sits between the parts)
    for source in ("breakfast_ko.md", "parking_en.md"):
        assert by_source[source].metadata["part_rank"] == 1, by_source[source].metadata
    whole = sorted(by_source[s].metadata["sentence_rank"] for s in ("breakfast_ko.md", "parking_en.md"))
    assert whole[1] > 1, whole


def test_without_part_rankings_no_result_carries_one(tool, monkeypatch):
    import rag.tools.vector as vector

    monkeypatch.setattr(vector, "_asked_parts", lambda query: [])
    results = tool.run("보람 호텔 조식은 몇 시부터야? 주차 요금은 하루에 얼마예요?", 4)
    assert results and all(r.metadata["part_rank"] is None for r in results)
    # the graph tool's searches ask for none (a chain question's parts are its hops)
    monkeypatch.undo()
    results = tool.run("보람 호텔 조식은 몇 시부터야? 주차 요금은 하루에 얼마예요?", 4, by_parts=False)
    assert all(r.metadata["part_rank"] is None for r in results)


def test_a_question_that_asks_one_thing_has_no_part_ranking(tool):
    assert _asked_parts("보람 호텔 조식은 몇 시부터야?") == []
    results = tool.run("보람 호텔 조식은 몇 시부터야?", 4)
    assert results and all(r.metadata["part_rank"] is None for r in results)
    assert "breakfast_ko.md" in [r.source for r in results]
