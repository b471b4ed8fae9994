"""Values a Korean sentence states (twenty-fifth session, issue 8; sentences written for this test).

- "3번 저온실", "2번 게이트로": N번 before a noun names the room or gate No. N; it is no count of times. A sentence
  about "3번 저온실" stated "3 times" for every quantity question, and a generic "how much" took it as the answer
  over "감귤 42톤". "61번 헌혈했다", "3번 이상" still count times.
- "15일(월)": a day of the month with its weekday in brackets is a date, not a number of days.
- Korean writes a native numeral apart from its counter ("세 척", "두 명"): "세척" (washing) is not "three ships".
"""
from __future__ import annotations

import pytest

from rag.engines.offline.answertype import asked_type, fit, STRONG
from rag.engines.offline.values import stated_values


def _quantities(sentence: str) -> list[tuple[str, str]]:
    return [(v.unit, v.text) for v in stated_values(sentence) if v.kind == "quantity"]


@pytest.mark.parametrize("sentence, quantities", [
    ("조천 창고 3번 저온실의 온도가 계속 올랐다.", []),
    ("2번 게이트로 가세요.", []),
    ("헌혈견 38마리가 모두 61번 헌혈했다.", [("animal", "38마리"), ("times", "61번")]),  # 마리 counts animals (28th session)
    ("3번 이상 위반하면 예약이 막힌다.", [("times", "3번")]),
    ("세척은 하루에 3번 한다.", [("times", "3번")]),
    ("항구에 배가 세 척 있다.", [("vessel", "세 척")]),
    ("두 명이 왔다.", [("person", "두 명")]),
])
def test_korean_counts(sentence, quantities):
    assert _quantities(sentence) == quantities


def test_a_day_with_its_weekday_is_a_date():
    values = stated_values("12월 13일(토) 밤부터 15일(월) 아침까지 온도가 올랐다.")
    assert ("date", "15일") in [(v.kind, v.text) for v in values]
    assert not any(v.kind == "quantity" and v.unit == "day" for v in values), values


def test_how_much_is_answered_by_the_amount_not_by_the_room_number():
    asked = asked_type("How much citrus was stored in the cold room whose temperature climbed?")
    assert fit(asked, "이 방에는 수출 등급 감귤 42톤이 보관돼 있었다.") == STRONG
    assert fit(asked, "12월 13일(토) 밤부터 15일(월) 아침까지 3번 저온실의 온도가 올라 최고 13.8℃를 기록했다.") < STRONG
