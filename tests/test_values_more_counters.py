"""Counters of doses, animals, cups, containers and teams (twenty-eighth session, issue 8).

"폐기한 백신은 몇 도스였나요?" asks for a number of doses, and "共 312 剂" states one; both were a bare "how many"
and a bare number, so any number of the retrieved notice answered as well (a date, a temperature's digits). The value
reader knows these counters now, in the three languages, as it knew books, machines and vessels; a count of any
thing still answers "몇 개 / how many items". Korean 병, 통 and 팀 are left out (병원 / 병동, 통화 / 통역, "1팀"
names a team).
"""
from __future__ import annotations

import pytest

from rag.engines.offline.answertype import STRONG, asked_type, fit
from rag.engines.offline.values import stated_values


@pytest.mark.parametrize("question, unit", [
    ("폐기한 백신은 몇 도스였나요?", "dose"),
    ("一共报废了多少剂疫苗？", "dose"),
    ("강아지 몇 마리까지 같이 묵을 수 있어요?", "animal"),
    ("How many glasses of beer were refunded?", "cup"),
    ("맥주 몇 잔 환불했어요?", "cup"),
    ("How many kegs did they send back?", "container"),
    ("一共来了多少组？", "team"),
])
def test_the_counter_asked(question, unit):
    assert asked_type(question).units == frozenset({unit})


@pytest.mark.parametrize("sentence, unit, text", [
    ("分院报废了柜内全部疫苗，共 312 剂。", "dose", "312 剂"),
    ("백신 312도스를 폐기했다.", "dose", "312도스"),
    ("개나 고양이는 2마리까지 함께 묵을 수 있다.", "animal", "2마리"),
    ("They refunded 212 glasses.", "cup", "212 glasses"),
    ("케그 14박스를 돌려보냈다.", "container", "14박스"),
])
def test_the_counter_stated(sentence, unit, text):
    assert (unit, text) in [(v.unit, v.text) for v in stated_values(sentence)]


def test_a_count_of_doses_answers_how_many_doses_and_a_date_does_not():
    asked = asked_type("폐기한 백신은 몇 도스였나요?")
    assert fit(asked, "分院报废了柜内全部疫苗，共 312 剂。") == STRONG
    assert fit(asked, "2025년 11월 14일 밤 냉장고 문이 열려 있었다.") < STRONG


@pytest.mark.parametrize("sentence", ["3병동 간호사실", "2통화 이상", "잔액은 3만 원이다.", "2박 3일 일정"])
def test_words_that_are_no_such_counter(sentence):
    units = {v.unit for v in stated_values(sentence)}
    assert not units & {"dose", "animal", "cup", "container", "team"}, (sentence, units)
