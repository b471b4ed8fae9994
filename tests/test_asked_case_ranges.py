"""The asker's own case and the rule whose range holds it (twenty-fifth session, issue 8; documents written for this
test).

"닷새 전에 취소하려고요 … 얼마나 떼이나요?", "we may have to scrap it roughly six weeks out. What would that cost us?":
the question states its own amount and asks which rule applies. The rules state ranges ("6일 전부터 3일 전 사이",
"59 to 30 days before arrival", "10 people or more", "7일 전까지"); each has the same key terms, none has the question's number, and
meaning ranks them alike, so the first rule of the list was quoted. The sentence whose range holds the question's
amount (in one unit class; days, weeks, months and years as days) now gets the asked-value bonus.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.coverage import question_terms
from rag.engines.offline.ranges import asked_amounts, holds_asked_amount, stated_ranges
from rag.types import Retrieved
from tests.support.meaning import fix_meaning

INF = float("inf")


@pytest.mark.parametrize("question, amounts", [
    ("객실 하나 잡아 놨는데 닷새 전에 취소하려고요. 얼마나 떼이나요?", [("day", 5.0)]),
    ("We may have to cancel roughly six weeks out. What would that cost?", [("day", 42.0)]),
    ("There are fourteen of us. Do you take a deposit?", [("person", 14.0)]),
    ("提前 5 天取消要扣多少钱？", [("day", 5.0)]),
    ("2주 전에 취소하면 얼마나 돌려받아요?", [("day", 14.0)]),
    ("위약금은 얼마예요?", []),
])
def test_the_amount_a_question_states_of_its_own_case(question, amounts):
    assert asked_amounts(question) == amounts


@pytest.mark.parametrize("sentence, ranges", [
    ("② 숙박일 6일 전부터 3일 전 사이에 취소하면 1박 요금의 20%를 뗀다.", [("day", 3.0, 6.0)]),
    ("(b) 59 to 30 days before arrival: 25%; (d) 7 days or fewer before arrival: 100%.",
     [("day", 30.0, 59.0), ("day", 0.0, 7.0)]),
    ("收货后 3 至 5 天内可以退换。", [("day", 3.0, 5.0)]),
    ("Groups of 10 people or more pay a deposit per person.", [("person", 10.0, INF)]),
    ("2~4주 걸린다.", [("day", 14.0, 28.0)]),
    ("만 12세 이하 어린이는 무료다.", [("age", 0.0, 12.0)]),
    # "7일 전까지": until 7 days before, that is 7 days or more before; "3영업일 안에": within 3 days
    ("① 숙박일 7일 전까지 취소하면 모두 돌려준다.", [("day", 7.0, INF)]),
    ("반품은 3영업일 안에 신청한다.", [("day", 0.0, 3.0)]),
    ("收货后 10 天以内可以退换。", [("day", 0.0, 10.0)]),
    # times of day and dates are no amounts
    ("营业时间 10:00-22:00。", []),
    ("2025년 3월~5월에 공사한다.", []),
])
def test_the_ranges_a_sentence_states(sentence, ranges):
    assert stated_ranges(sentence) == ranges


def test_a_range_holds_an_amount_of_its_own_unit_class_only():
    assert holds_asked_amount([("day", 42.0)], "59 to 30 days before arrival: 25%.")
    assert not holds_asked_amount([("day", 42.0)], "29 to 8 days before arrival: 50%.")
    assert not holds_asked_amount([("person", 5.0)], "3 to 6 days before: 20%.")
    assert not holds_asked_amount([], "3 to 6 days before: 20%.")


POLICY = ("# 객실 취소 규정\n\n"
          "① 숙박일 7일 전까지 취소하면 결제한 금액을 모두 돌려준다.\n"
          "② 숙박일 6일 전부터 3일 전 사이에 취소하면 1박 요금의 20%를 위약금으로 뗀다.\n"
          "③ 숙박일 2일 전부터 전날까지 취소하면 1박 요금의 절반을 위약금으로 뗀다.\n")
RULE_2 = "② 숙박일 6일 전부터 3일 전 사이에 취소하면 1박 요금의 20%를 위약금으로 뗀다."


@pytest.fixture
def engine(data_dir):
    from tests.support.kb import make_settings

    return OfflineEngine(make_settings(data_dir), clock=lambda: date(2026, 12, 1))


def _quoted(engine, monkeypatch, question: str) -> list:
    fix_meaning(engine, monkeypatch, {}, default=0.6)  # every rule matches the question alike by meaning
    terms, _ = question_terms(question)
    doc = Retrieved(id="p:0", text=POLICY, source="policy.txt", score=0.9, tool="vector", doc_id="p", chunk_index=0)
    return engine._select(question, terms, [doc])


def test_the_rule_whose_range_holds_the_asked_case_is_quoted_first(engine, monkeypatch):
    quoted = _quoted(engine, monkeypatch, "방 하나 잡아 놨는데 닷새 전에 취소하려고요. 위약금이 얼마나 되나요?")
    assert quoted[0].text == RULE_2, [c.text for c in quoted]
    assert "range holds" in quoted[0].why


def test_until_n_days_before_holds_a_case_further_ahead(engine, monkeypatch):
    quoted = _quoted(engine, monkeypatch, "방 하나 잡아 놨는데 열흘 전에 취소하면 위약금이 얼마나 되나요?")
    assert quoted[0].text.startswith("① 숙박일 7일 전까지"), [c.text for c in quoted]


def test_a_question_that_states_no_amount_keeps_the_ranking(engine, monkeypatch):
    quoted = _quoted(engine, monkeypatch, "예약 취소하면 위약금이 얼마나 되나요?")
    assert all("range holds" not in c.why for c in quoted)
