"""Routing reads what a question asks (twenty-fourth session, issue 8; questions written for this test).

A Korean background clause in 데 without a comma ("다른 대학 소속인데 주사전자현미경 …") is a lead-in as it is with a
comma: its relation word (소속) does not send a value question to the graph. Chinese 哪家公司 asks which company as
哪个公司 does, and 总部 (headquarters) asks where, as 본사 and "headquarters" do.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.parts import asking_clause
from tests.support.kb import make_settings


@pytest.fixture
def engine(tmp_path):
    return OfflineEngine(make_settings(tmp_path), clock=lambda: date(2026, 12, 1))


@pytest.mark.parametrize("question, asked", [
    ("다른 대학 소속인데 주사전자현미경 한 시간 쓰면 얼마 내야 돼요?", "주사전자현미경 한 시간 쓰면 얼마 내야 돼요?"),
    ("다른 대학 소속인데요, 주사전자현미경 한 시간 쓰면 얼마 내야 돼요?", "주사전자현미경 한 시간 쓰면 얼마 내야 돼요?"),
    ("서울 가는 데 몇 시간 걸려요?", "서울 가는 데 몇 시간 걸려요?"),  # 데 as a noun ("in going"), no lead-in
    ("비자 신청하는데 필요한 서류는 뭐야?", "비자 신청하는데 필요한 서류는 뭐야?"),  # the same noun written together
    ("2023년 감사 준비하는데 필요한 서류가 뭐예요?", "2023년 감사 준비하는데 필요한 서류가 뭐예요?"),
    ("A안은 3개월 걸리는데 B안은 얼마나 걸려?", "A안은 3개월 걸리는데 B안은 얼마나 걸려?"),  # two sides compared
    ("지점 여러 군데 중 어디가 제일 커?", "지점 여러 군데 중 어디가 제일 커?"),  # 군데 is a counter
    ("작년에 입사했는데 연차는 며칠이야?", "연차는 며칠이야?"),
    ("Atlas를 만든 팀의 팀장은 누구야?", "Atlas를 만든 팀의 팀장은 누구야?"),
])
def test_a_korean_background_clause_without_a_comma_is_a_lead_in(question, asked):
    assert asking_clause(question) == asked


def test_a_lead_in_relation_word_does_not_route_to_the_graph(engine):
    decision = engine.classify("다른 대학 소속인데 주사전자현미경 한 시간 쓰면 얼마 내야 돼요?", known_entities=[])
    assert decision.strategy == "vector", decision.reason


@pytest.mark.parametrize("question", ["那个监控系统是哪家公司开发的？这家公司总部在哪里？",  # 哪家公司 + 总部: two relations
                                      "门禁读卡器是哪家公司开发的？"])  # 哪家公司 is "which company", as 哪个公司 is
def test_chinese_which_company_and_headquarters_ask_relations(engine, question):
    decision = engine.classify(question, known_entities=[])
    assert decision.strategy == "graph", decision.reason
