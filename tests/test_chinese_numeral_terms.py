"""A Chinese key term led by a numeral is a number (twenty-fifth session, issue 8; texts written for this test).

"两周", "五千万元" are the only words of a Chinese question that every language writes alike once read as
numbers: "two weeks", "2주", "5,000 万元". They were matched as written only, so an English or Korean sentence
that states the same number never covered them and a Chinese one that writes it in digits did not either. Words that
are written with a numeral but are no number ("一共", "一直", "一次" as "once") are not read as one.
"""
from __future__ import annotations

import pytest

from rag.engines.offline.coverage import coverage_of


@pytest.mark.parametrize("term, text", [
    ("两周", "57 pets were more than two weeks late for a booster."),
    ("两周", "예약이 2주 넘게 밀렸다."),
    ("两周", "交流为期 2 周。"),
    ("三年", "The licence runs for three years."),
    ("五千万元", "单月净收入超过人民币 5,000 万元的部分按 32% 分成。"),
    ("五千万", "Revenue above 5000万 is shared differently."),
])
def test_the_same_number_in_any_language_covers_the_term(term, text):
    cov = coverage_of([term], text)
    assert cov.credit[term] == 1.0, cov.how
    assert cov.how[term] == "as the same number"


@pytest.mark.parametrize("term, text", [
    ("两周", "两名兽医来交流，共 2 个月。"),  # 2 in another unit (months), 两 before another word
    ("两周", "The exchange lasts three weeks."),  # weeks, another number
    ("五千万元", "超过 5,000 元的部分"),  # no 万: five thousand, not fifty million
    ("一共", "合同共 3 年。"),  # a word written with a numeral, no unit after it
    ("一直", "The alarm stayed silent for 1 hour."),
    ("一次", "Tap lines are cleaned once a week."),
    ("三十", "The set point dropped to 30°C."),  # a bare numeral, its unit split off ("三十来度"): any 30 would match
])
def test_another_number_or_a_word_written_with_a_numeral_does_not(term, text):
    assert coverage_of([term], text).credit.get(term, 0.0) == 0.0


def test_a_term_written_as_in_the_text_stays_an_exact_match():
    assert coverage_of(["两周"], "迟打两周以上的有 57 只。").how["两周"] == "exact"
