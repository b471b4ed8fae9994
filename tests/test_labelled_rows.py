"""A value asked by the word that labels its row (twenty-sixth session, issue 8; a document written for this test).

"定金交多少？" over a cake-order table: the cancellation row mentions 定金 twice ("取货前一天以上取消，全额退还定金 …") and
matched the question a little better by meaning than the row labelled 定金 ("| 定金 | 蛋糕价格的 30% |"), so the answer
quoted the cancellation rule. A table row's first cell, or the lead of a "label: value" line, names what the line
states: a line labelled by an asked word gets a bonus (``rules.LABEL_BONUS``), with the reason in the trace.

The semantic scores are the input (``sentence_evidence``); what is tested is the choice made from them.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.coverage import question_terms
from rag.engines.offline.layout import field_label
from rag.types import Retrieved
from tests.support.meaning import fix_meaning

NOTICE = ("# 生日蛋糕预订须知\n\n"
          "| 项目 | 说明 |\n|---|---|\n"
          "| 预订时间 | 至少提前 3 天预订 |\n"
          "| 取消 | 取货前 1 天以上取消，全额退还定金；取货当天取消不退定金 |\n"
          "| 定金 | 蛋糕价格的 40% |\n")
CANCEL_ROW = "| 取消 | 取货前 1 天以上取消，全额退还定金；取货当天取消不退定金 |"
DEPOSIT_ROW = "| 定金 | 蛋糕价格的 40% |"

GUIDE = ("# Equipment access\n\n"
         "Late returns of the wafer saw cost 20 dollars a day; the booking desk answers deposit questions.\n\n"
         "Wafer saw deposit: 200 dollars, refunded when the saw is returned clean.\n")
GUIDE_SENTENCE = "Late returns of the wafer saw cost 20 dollars a day; the booking desk answers deposit questions."
GUIDE_FIELD = "Wafer saw deposit: 200 dollars, refunded when the saw is returned clean."


@pytest.fixture
def engine(data_dir):
    from tests.support.kb import make_settings

    return OfflineEngine(make_settings(data_dir), clock=lambda: date(2026, 12, 1))


def _quoted(engine, monkeypatch, question: str, text: str, scores: dict[str, float]) -> list:
    fix_meaning(engine, monkeypatch, scores, default=0.1)
    terms, _ = question_terms(question)
    doc = Retrieved(id="d:0", text=text, source="doc.md", score=0.9, tool="vector", doc_id="d", chunk_index=0)
    return engine._select(question, terms, [doc])


@pytest.mark.parametrize("line, label", [
    (DEPOSIT_ROW, "定金"),
    ("| 체중 | 25kg 이상 |", "체중"),
    ("**Anvil** (build farm): requests are approved within two business days.", "Anvil (build farm)"),
    ("발주 마감 — 매장은 전날 14:00까지 발주한다.", "발주 마감"),
    ("管理支持费：每年人民币 80 万元。", "管理支持费"),
    ("| 项目 | 说明 |", ""),  # a header row states no value
    ("The nightly build starts at 03:00 KST.", ""),  # a time is no label
    ("09:00–20:00 open every day", ""),
    ("Dr. Kim said: the saw is fine.", ""),  # a sentence before the colon, not a label
])
def test_field_label(line, label):
    assert field_label(line) == label


def test_the_row_labelled_by_the_asked_word_is_quoted(engine, monkeypatch):
    picked = _quoted(engine, monkeypatch, "定金交多少？", NOTICE, {CANCEL_ROW: 0.6, DEPOSIT_ROW: 0.5})
    assert picked[0].text == DEPOSIT_ROW, [c.text for c in picked]
    assert "label '定金'" in picked[0].why


def test_a_label_line_in_prose(engine, monkeypatch):
    picked = _quoted(engine, monkeypatch, "How much is the deposit for the wafer saw?", GUIDE,
                     {GUIDE_SENTENCE: 0.62, GUIDE_FIELD: 0.55})
    assert picked[0].text == GUIDE_FIELD, [c.text for c in picked]


def test_a_label_that_is_not_asked_gives_nothing(engine, monkeypatch):
    # asked for the booking time: the deposit row's label is not an asked word, the booking row's is not either
    # ("预订时间" is not in "要提前几天"), so meaning decides
    picked = _quoted(engine, monkeypatch, "要提前几天？", NOTICE,
                     {"| 预订时间 | 至少提前 3 天预订 |": 0.6, DEPOSIT_ROW: 0.55})
    assert picked[0].text == "| 预订时间 | 至少提前 3 天预订 |", [c.text for c in picked]
    assert "label" not in (picked[0].why or "")
