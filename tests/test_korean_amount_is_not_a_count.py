"""A bare Korean "얼마" asks an amount, not a count (twenty-ninth session, issue 8).

"친구 셋이랑 8월 영화제 가 보려는데 보통 영화 한 편 표가 얼마예요?" asks what a ticket costs. "얼마" with no money word
read as any quantity, money or percentage, so "하루에 5편까지만 예매할 수 있습니다" (a count of films) fitted it as well
as "일반 상영 관람료는 한 편에 9,000원입니다" and won the part. A count of things or people now fits a bare "얼마"
weakly; money, a percentage or a measure still fit it. "얼마나" (how long, how far, how much of it) is left as it was.
"""
from __future__ import annotations

from rag.engines.offline.answertype import AMOUNT, STRONG, WEAK, asked_type, fit

QUESTION = "친구 셋이랑 8월 영화제 가 보려는데 보통 영화 한 편 표가 얼마예요?"


def test_a_price_fits_and_a_count_of_films_does_not():
    asked = asked_type(QUESTION)
    assert asked.label == AMOUNT
    assert fit(asked, "일반 상영 관람료는 한 편에 9,000원입니다.") == STRONG
    assert fit(asked, "영화제 전체로는 하루에 5편까지만 예매할 수 있습니다.") == WEAK


def test_a_rate_and_a_measure_still_fit():
    asked = asked_type("회원 할인 폭은 보통 얼마예요?")
    assert asked.label == AMOUNT
    assert fit(asked, "회원은 관람료의 12%를 할인받는다.") == STRONG
    assert fit(asked, "배송비는 2.5kg까지 무료이다.") == STRONG


def test_how_much_of_something_is_left_as_it_was():
    asked = asked_type("매주 몇 명이나 오는지, 얼마나 자주 오는지 알려 주세요")
    assert asked.label != AMOUNT
