"""Numbers written as words before a unit (twenty-seventh session, issue 8; sentences written for this test).

- Korean native numerals of two parts are one number: "열두 시간" is 12 hours (it was read as "두 시간", 2 hours),
  "스물네 시간" 24.
- English tens joined by a hyphen ("twenty-four hours", "forty-five minutes") are one number (nothing was read).
- One unit with an article after a word of time taken is a duration: "It takes an hour", "within a week", "at least a
  month", "half an hour"; "once a week" / "twice a day" stay frequencies.
"""
from __future__ import annotations

import pytest

from rag.engines.offline.answertype import STRONG, asked_type, fit
from rag.engines.offline.values import stated_values


def _quantities(sentence: str) -> list[tuple[str, str]]:
    return [(v.unit, v.text) for v in stated_values(sentence) if v.kind == "quantity"]


@pytest.mark.parametrize("sentence, quantities", [
    ("본원 응급실은 열두 시간씩 교대로 근무한다.", [("hour", "열두 시간")]),
    ("본원은 스물네 시간 운영한다.", [("hour", "스물네 시간")]),
    ("신입 교육에는 열 명이 참가했다.", [("person", "열 명")]),
    ("The front desk is staffed twenty-four hours a day.", [("hour", "twenty-four hours")]),
    ("The ferry crossing takes forty-five minutes.", [("minute", "forty-five minutes")]),
    ("Approval takes an hour.", [("hour", "an hour")]),
    ("Replies come within a week.", [("week", "a week")]),
    ("Keep the records for at least a year.", [("yearspan", "a year")]),
    ("The bus ride takes half an hour.", [("hour", "half an hour")]),
    ("The induction lasts a full day.", [("day", "a full day")]),
])
def test_a_number_in_words_is_read_whole(sentence, quantities):
    assert _quantities(sentence) == quantities


@pytest.mark.parametrize("sentence", ["Tanks are checked once a week.", "Dogs are fed twice a day.",
                                      "There is a day off after each night shift."])
def test_an_article_before_a_unit_elsewhere_is_no_duration(sentence):
    assert not [v for v in stated_values(sentence) if v.kind == "quantity"]


def test_how_long_is_answered_by_an_hour():
    asked = asked_type("How long does approval take?")
    assert fit(asked, "Approval takes an hour.") == STRONG
    assert fit(asked, "Approval is given by the lab manager.") < STRONG



def test_a_chinese_percentage_keeps_its_number():
    # "百分之三十" was read as "百分之" alone: a percentage whose number no check could compare
    assert [(v.kind, v.text) for v in stated_values("退款为订单金额的百分之三十。")] == [("percent", "百分之三十")]
    assert [(v.kind, v.text) for v in stated_values("押金为百分之 30。")] == [("percent", "百分之 30")]


# ---- a review of the change: readings it must not make
@pytest.mark.parametrize("sentence", ["잘 쉰 시간이 부족했다.", "Sign up for a year-end party.", "Buy tickets for a day pass.",
                                      "Zone 3-H is closed.", "소득 1분위 가구가 대상이다."])
def test_no_quantity_with_a_unit_in_other_senses(sentence):
    assert not [v for v in stated_values(sentence) if v.kind == "quantity" and v.unit]
