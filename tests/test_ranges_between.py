"""Issue 8: a rule's range written as two open ends ("8 周岁以上未满 16 周岁", "14세 이상 19세 미만") is one range, and the
asker's own amount that it holds is not "missing" from the document.

"12岁的玩家一个月最多能充值多少钱？" is answered by the row "| 8 周岁以上未满 16 周岁 | 50 元 | 200 元 |" (dev corpus F,
sl-13): the number 12 is in no row, so every row was graded "lacks '12' from the question" and the answer was
partial; and read as two open ranges (8 or more; under 16) every row of the table held 12. Now "A 以上 / 이상 / or over"
followed at once (a comma or "and" between) by "未满 / 미만 / under / 以下 B" is the range A–B, "未满 / 不满 / under B" and "B 미만" bound from
above, 周岁 is an age, and a number of the question held by a range of the text is credited ("within a stated
range"). Language, not tuned; the texts below are in none of the evaluation sets."""
from __future__ import annotations

import pytest

from rag.engines.offline.coverage import coverage_of, credit_months, question_terms
from rag.engines.offline.ranges import asked_amounts, holds_asked_amount, stated_ranges


@pytest.mark.parametrize("text,expected", [
    ("| 6 周岁以上未满 12 周岁 | 30 元 | 100 元 |", [("age", 6.0, 12.0)]),
    ("| 未满 6 周岁 | 免费 |", [("age", 0.0, 6.0)]),
    ("만 13세 이상 18세 미만 청소년은 보호자 동의가 필요하다.", [("age", 13.0, 18.0)]),
    ("65세 미만은 일반 요금이다.", [("age", 0.0, 65.0)]),
    ("3일 이상, 5일 이하로 빌릴 수 있다.", [("day", 3.0, 5.0)]),
    ("Riders under 16 years old need a helmet.", [("age", 0.0, 16.0)]),
    # not joined: words between the two ends, a deadline ("7일 전까지"), two cells of a table, a word that ends in "under"
    ("7일 이상 무료, 10일 이하", [("day", 7.0, float("inf")), ("day", 0.0, 10.0)]),
    ("취소는 7일 전까지, 14일 이내 환불", [("day", 7.0, float("inf")), ("day", 0.0, 14.0)]),
    ("| 18 周岁以上 |\n| 未满 60 周岁 |", [("age", 18.0, float("inf")), ("age", 0.0, 60.0)]),
    ("thunder 5 days", []),
])
def test_ranges(text, expected):
    assert stated_ranges(text) == expected


def test_only_the_row_that_holds_the_age():
    amounts = asked_amounts("9岁的孩子一次最多能充多少？")
    rows = ["| 未满 6 周岁 | 不得充值 |", "| 6 周岁以上未满 12 周岁 | 30 元 |", "| 12 周岁以上未满 18 周岁 | 50 元 |"]
    assert [holds_asked_amount(amounts, r) for r in rows] == [False, True, False]


def test_the_held_number_is_not_missing():
    question = "9岁的孩子一次最多能充多少？"
    terms, focus = question_terms(question)
    row = "| 6 周岁以上未满 12 周岁 | 30 元 | 100 元 |"
    cov = credit_months(question, row, coverage_of(terms, row, focus))
    assert "9" in cov.terms and not cov.missing_numbers, cov.summary()
    assert cov.how["9"].startswith("within a stated range")
    other = "| 12 周岁以上未满 18 周岁 | 50 元 | 200 元 |"
    assert "9" in credit_months(question, other, coverage_of(terms, other, focus)).missing_numbers
