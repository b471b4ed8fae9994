"""English joins a number and its unit with a hyphen when they qualify a noun (twenty-seventh session, issue 8;
sentences written for this test).

"Complete the four-hour online hygiene course" states a duration: "how long is the hygiene course?" was answered by
"at least 30 seconds" (hand-washing), the only sentence whose duration the value reader saw. The hyphen joins only a
number and a Latin unit word; "5-year-old" is read as an age (it was read as nothing before), and a hyphen between
numbers or before a word that is no unit states nothing new.
"""
from __future__ import annotations

import pytest

from rag.engines.offline.answertype import STRONG, asked_type, fit
from rag.engines.offline.values import stated_values


def _quantities(sentence: str) -> list[tuple[str, str]]:
    return [(v.unit, v.text) for v in stated_values(sentence) if v.kind == "quantity"]


@pytest.mark.parametrize("sentence, quantities", [
    ("Complete the four-hour online hygiene course before your first shift ends.", [("hour", "four-hour")]),
    ("Tenants get a 30-day notice before any rent change.", [("day", "30-day")]),
    ("The two-week induction ends with a test.", [("week", "two-week")]),
    ("A 12-month warranty covers the pump.", [("month", "12-month")]),
    ("Hazardous work follows a two-person rule.", [("person", "two-person")]),
    ("The course takes four hours.", [("hour", "four hours")]),  # the spaced form, as before
])
def test_a_hyphenated_number_and_unit_is_a_quantity(sentence, quantities):
    assert _quantities(sentence) == quantities


@pytest.mark.parametrize("sentence, quantities", [
    ("The clinic treats a 5-year-old dog for free.", [("age", "5-year-old")]),
    ("A one-time fee is charged.", []),  # "time" is no unit
    ("Bring a COVID-19 test result.", []),  # letters before the hyphen: a name
    ("Use the 2-step form.", []),  # "step" is no unit
])
def test_an_age_is_an_age_and_other_hyphens_state_nothing(sentence, quantities):
    assert _quantities(sentence) == quantities


def test_how_long_is_answered_by_the_hyphenated_duration():
    asked = asked_type("Starting at a store next week. How long's the hygiene course?")
    assert fit(asked, "Complete the four-hour online hygiene course before your first shift ends.") == STRONG
    assert fit(asked, "Bring your health certificate.") < STRONG
