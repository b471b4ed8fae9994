"""A phrase the question quotes is a mention, not its asking words (twenty-ninth session, issue 8).

"酒馆菜单屏上那个“最后几杯”的提示，是桶里剩多少的时候跳出来的？" quotes the label on a screen; its "几杯" is part of
the label. Read as asked, the question wanted a number of cups, and a sentence stating litres left in the keg no
longer fitted the asked kind. The quoted span is masked before the asked kind is read; the asking words outside it
decide, in every language. ASCII single quotes are left alone (they are apostrophes too).
"""
from __future__ import annotations

import pytest

from rag.engines.offline.answertype import STRONG, asked_type, fit


@pytest.mark.parametrize("question", [
    "酒馆菜单屏上那个“最后几杯”的提示，是桶里剩多少的时候跳出来的？",
    "点餐屏上「最后几杯」提示是在剩多少的时候出现？",
    "탭 화면의 “몇 잔 남음” 표시는 얼마 남았을 때 떠요?",
])
def test_a_counter_inside_quotes_is_not_the_asked_unit(question):
    asked = asked_type(question)
    assert "cup" not in asked.units
    assert fit(asked, "The warning appears when 4 litres are left in the keg.") == STRONG


@pytest.mark.parametrize("question, unit", [
    ("“最后几杯”的提示一共显示过几杯？", "cup"),  # the asking words outside the quotes still count cups
    ("Where does the \"Last pours\" banner come from, and how many litres trigger it?", "liquid"),
    ("‘마감 임박’ 알림은 몇 리터 남았을 때 떠요?", "liquid"),
])
def test_the_asking_words_outside_the_quotes_decide(question, unit):
    assert asked_type(question).units == frozenset({unit})


def test_an_apostrophe_is_not_a_quote():
    asked = asked_type("What's the keg's size, and how many glasses does it pour?")
    assert asked.units == frozenset({"cup"})


def test_a_question_asking_nothing_but_a_quoted_title_asks_no_value():
    assert not asked_type("“几点了”这首歌是谁唱的？").kinds - {"person"}


def test_a_currency_inside_quotes_is_not_the_asked_currency():
    # the currency is read from the same masked question as the kind: "多少美元" on a button is a label
    assert asked_type("按钮上写着“多少美元”，那这张票实际要付多少钱？").currency == ""
    assert asked_type("这张票要付多少美元？").currency == "usd"
