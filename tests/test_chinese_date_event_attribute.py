"""A Chinese date question asks when an event happened; the event is its asked attribute (thirtieth session, issue 8).

"申果下个产季的第一批济州柑橘什么时候发货？" asks when the first batch ships. A Chinese agreement that names the same
companies and states dates for something else ("5 月 13 日上午：参观榨汁厂") was graded correct on its names and a
date, and the answer quoted it (dev set E, sl-12). The verb after the question word ("什么时候发货", "是哪天上线的", "哪年几月建成的") is
now the asked attribute, as the noun before "是多少" already was: a Chinese document that never writes it is held at
ambiguous (``grading.Grader._asked_value_missing``); a document in another script is not judged by it.

Documents written for this test; real knowledge base, real embedder, no mocks.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.attribute import asked_attribute
from tests.support.kb import best_grade

TEXTS = {
    "zh_orchard_visit.md": (
        "# 青禾果业考察纪要\n\n"
        "青禾果业与海岚果园于 2026 年 3 月签订采购意向书。\n"
        "青禾果业下个产季的第一批苹果将于 9 月 2 日在海岚果园采摘，5 月 13 日上午双方参观了选果车间。\n"),
    "zh_orchard_shipping.md": (
        "# 青禾果业发货安排\n\n"
        "青禾果业本产季的第一批苹果定于 11 月 20 日发货，之后每两周发货一次。\n"),
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("zh-date-event"), TEXTS)
    yield kb
    kb.close()


@pytest.fixture(scope="module")
def engine(kb):
    return OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1))


@pytest.mark.parametrize("question, attribute", [
    ("青禾果业下个产季的第一批苹果什么时候发货？", "发货"),
    ("这款游戏的国际服是哪天上线的？", "上线"),
    ("他们的冷库是哪年几月建成的？", "建成"),
    ("开幕式几号举行的？", "举行"),
    ("图书馆是什么时候开的？", ""),  # one character (开) is no attribute
    ("儿童票每张多少钱？", ""),  # not a date question, and money names no attribute
])
def test_the_event_of_a_chinese_date_question_is_its_attribute(question, attribute):
    assert asked_attribute(question) == attribute


def test_a_document_with_the_names_and_a_date_of_another_event_is_not_correct(kb, engine):
    question = "青禾果业下个产季的第一批苹果什么时候发货？"
    _, g = best_grade(kb, engine, question, "zh_orchard_visit.md")
    assert g.label != "correct", g.reason
    if g.label == "ambiguous":
        assert "the asked attribute '发货'" in g.reason, g.reason


def test_the_document_that_states_the_event_stays_correct(kb, engine):
    _, g = best_grade(kb, engine, "青禾果业下个产季的第一批苹果什么时候发货？", "zh_orchard_shipping.md")
    assert g.label == "correct", g.reason
