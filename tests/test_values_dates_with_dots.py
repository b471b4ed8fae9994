"""Dates as Korean and Chinese documents often write them, and words that only look like a unit (twenty-seventh
session, issue 8; sentences written for this test).

- A full date written year first with dots or slashes ("2024. 3. 15.", "2024.03.15", "2024/3/15") is a date; it was
  a bare number "2024.03.15" (or the "24/3/15" of a day/month reading), so "언제 개관했어?" did not find it.
- "March 15th" is a date as "March 15" and "15th March" were.
- "3분기" is a quarter and "3분의 1" a third, not three minutes.
"""
from __future__ import annotations

import pytest

from rag.engines.offline.answertype import STRONG, asked_type, fit
from rag.engines.offline.values import stated_values


def _dates(sentence: str) -> list[str]:
    return [v.text for v in stated_values(sentence) if v.kind == "date"]


@pytest.mark.parametrize("sentence, date", [
    ("새 분원의 개관일은 2024. 3. 15.이다.", "2024. 3. 15."),
    ("이 규정은 2024.03.15부터 시행한다.", "2024.03.15"),
    ("开业日期为2024.3.15。", "2024.3.15"),
    ("The pilot ran until 2024/3/15.", "2024/3/15"),
    ("The branch opened on March 15th, 2024.", "March 15th"),
])
def test_a_full_date_is_a_date(sentence, date):
    assert _dates(sentence) == [date]


@pytest.mark.parametrize("sentence", ["Install Python 3.11.4 first.", "The weight is 3.5 kg."])
def test_a_version_or_a_decimal_is_no_date(sentence):
    assert _dates(sentence) == []


@pytest.mark.parametrize("sentence", ["2025년 3분기 매출이 늘었다.", "예산의 3분의 1을 썼다."])
def test_a_quarter_or_a_third_is_no_minutes(sentence):
    assert not [v for v in stated_values(sentence) if v.unit == "minute"]


def test_when_is_answered_by_a_dotted_date():
    asked = asked_type("서귀포 분원은 언제 개관했어요?")
    assert fit(asked, "새 분원의 개관일은 2024. 3. 15.이다.") == STRONG


def test_a_spaced_date_ends_with_its_dot():
    # "in 2019. 2. 5 staff joined": a sentence ends after 2019; no date across it
    assert _dates("The office opened in 2019. 2. 5 staff joined later.") == []
