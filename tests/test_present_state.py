"""Issue 8: "지금 / currently / 目前" asks for the present state of something, which the documents may state.

"밀다락 직원 지금 몇 명이에요?" used to go to the web (any TEMPORAL_MARKER did) and, once there was no web tool, the
company overview that says "2026년 11월 현재 … 486명" was held at ambiguous ("'지금' asks for the newest information,
which a stored document cannot confirm"), and "지금" was read as the asked attribute. Now (rules.PRESENT_MARKERS):

- a present-state marker about something the documents hold (a graph entity, and another word the documents
  mention) goes to the documents; one about nothing they hold ("지금 날씨", "the exchange rate right now") still
  goes to the web, and news markers ("최신", "today") always do;
- "this year" (올해) names today's year: a dated event of this year that the documents mention goes to them, as a
  year written as a number does;
- a document that states the present itself ("현재", "as of", "目前", "截至") is not held at ambiguous for it;
- a time adverb is never the asked attribute.

Documents written for this test (a made-up bicycle-repair cooperative, Korean and Chinese); real knowledge base,
real embedder, no mocks.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.attribute import asked_attribute
from tests.support.kb import best_grade

TEXTS = {
    "coop_overview_ko.md": ("# 바퀴살협동조합 소개\n\n"
                            "바퀴살협동조합은 2016년 청주에서 자전거 수리공 다섯 명이 세웠다.\n"
                            "2026년 10월 현재 조합원은 모두 132명(정비사 41명, 후원 조합원 91명)이다.\n"
                            "수리점은 청주와 세종에 모두 4곳이 있다.\n"),
    "coop_history_ko.md": ("# 연혁\n\n"
                           "2018년 바퀴살협동조합은 첫 중고 자전거 장터를 열었다.\n"
                           "2021년에는 어린이 자전거 교실을 시작했다.\n"
                           "2024년 세종 수리점이 문을 열었다.\n"),
    "coop_partner_zh.md": ("# 合作伙伴\n\n"
                           "截至 2026 年 10 月，辐条合作社目前在苏州有 2 家合作维修点。\n"
                           "合作维修点每周六免费检查轮胎气压。\n"),
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("present-state"), TEXTS)
    yield kb
    kb.close()


@pytest.fixture(scope="module")
def engine(kb):
    return OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1))


@pytest.mark.parametrize("question, route", [
    ("바퀴살협동조합 조합원 지금 몇 명이에요?", "vector"),  # the present state of something the documents hold
    ("바퀴살협동조합 현재 수리점은 몇 곳이야?", "vector"),
    ("지금 청주 날씨 어때?", "web"),  # the present state of nothing the documents hold
    ("What is the current won to dollar exchange rate?", "web"),
    ("What's the won to yuan exchange rate right now?", "web"),  # the documents state fees in won and yuan
    ("바퀴살협동조합 조합원 요즘 몇 명쯤 돼?", "vector"),
    ("올해 세종 수리점에서 연 자전거 교실은 몇 번이었어?", "vector"),  # this year (2026), which the documents mention
    ("바퀴살협동조합 최신 소식 알려 줘", "web"),  # news: always the web
    ("오늘 바퀴살협동조합 수리점 문 열어?", "web"),
])
def test_present_state_routes_by_what_the_documents_hold(kb, engine, question, route):
    decision = engine.classify(question, kb.graph.entity_names())
    assert decision.strategy == route, decision.reason
    checked = " ".join(decision.signals.get("checked", []))
    if route == "vector":
        assert "present-state marker" in checked or "'올해' is 2026" in checked, decision.signals


def test_a_document_that_states_the_present_answers_a_present_state_question(kb, engine):
    g = best_grade(kb, engine, "바퀴살협동조합 조합원 지금 몇 명이에요?", "coop_overview_ko.md")[1]
    assert g.label == "correct", g.reason
    assert "cannot confirm" not in g.reason and "asked attribute '지금'" not in g.reason


def test_news_still_cannot_be_confirmed_by_a_document(kb, engine):
    g = best_grade(kb, engine, "바퀴살협동조합 조합원 최신 몇 명이에요?", "coop_overview_ko.md")[1]
    assert g.label != "correct" and "newest information" in g.reason, g.reason


@pytest.mark.parametrize("question, attribute", [
    ("밀다락 직원 지금 전부 몇 명이에요?", "직원"),
    ("조합원 현재 몇 명이야?", "조합원"),
])
def test_a_time_adverb_is_not_the_asked_attribute(question, attribute):
    assert asked_attribute(question) == attribute
