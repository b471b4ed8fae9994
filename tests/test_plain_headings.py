"""Plain-text headings (issue 8): a .txt, .docx or PDF document has no "#", but its structure is there — bracketed
titles, numbered articles, section titles in capitals, "一、概要", a numbered section title above its text. They
become the heading of the sentences under them (``rag.sentences.plain_heading``), as a Markdown heading does, so a
cause / procedure question finds the section of that kind and a value question the section that names its subject.
The documents here were written for these tests."""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.sentences import plain_heading, split_units, text_hash
from rag.types import Grade, Retrieved

NOTICE_KO = ("해오름 도서관 자원봉사 안내\n"
             "(2026년 3월 개정)\n\n"
             "[참여 조건]\n"
             "- 나이: 만 16세 이상\n"
             "- 한 달에 8시간 이상 활동할 수 있는 사람\n\n"
             "[활동 순서]\n"
             "1. 온라인으로 신청서를 낸다.\n"
             "2. 사서와 면담한다.\n"
             "3. 첫 활동 날 안전 교육을 받는다.\n\n"
             "문의: 해오름 도서관 운영팀\n")
TERMS_EN = ("HARBOUR BIKES - RENTAL TERMS FOR COMPANIES AND SCHOOLS AND OTHER GROUP CUSTOMERS\n\n"
            "1. Scope\n"
            "1.1 These terms apply to bookings of 10 bikes or more.\n\n"
            "2. DEPOSITS (refundable)\n"
            "- A group pays a deposit of 50,000 won per bike.\n\n"
            "3. Returns\n\n"
            "Bikes are returned to the dock they were rented from before 19:00.\n")
REPORT_ZH = ("海风自行车 事故报告：还车闸锁故障（2026年2月）\n\n"
             "一、概要\n"
             "2026年2月9日早上，码头站的 12 个闸锁中有 5 个无法锁车。现场人员最初认为是海风太大。\n\n"
             "二、原因\n"
             "前一天晚上更新的闸锁软件把时区改成了 UTC，闸锁因此拒绝当天的还车请求。\n")
STEPS_EN = ("How to rent a bike\n\n"
            "1. open the app\n"
            "2. scan the code on the dock\n"
            "3. pull the bike out\n")


@pytest.fixture
def settings(data_dir):
    from tests.support.kb import make_settings

    return make_settings(data_dir)


def _headings(text: str) -> dict[str, str]:
    return {u.text: u.heading for u in split_units(text)[0]}


def test_bracketed_titles_and_the_first_line_are_headings():
    units = _headings(NOTICE_KO)
    assert units["나이: 만 16세 이상"] == "해오름 도서관 자원봉사 안내 › 참여 조건"
    assert units["사서와 면담한다."] == "해오름 도서관 자원봉사 안내 › 활동 순서"
    assert "참여 조건" not in units and "[참여 조건]" not in units  # a heading is context, not a sentence
    # a "key: value" line with nothing under it states something: it stays a sentence
    assert "문의: 해오름 도서관 운영팀" in units


def test_numbered_section_titles_capitals_and_long_capital_titles():
    units = _headings(TERMS_EN)
    title = "HARBOUR BIKES - RENTAL TERMS FOR COMPANIES AND SCHOOLS AND OTHER GROUP CUSTOMERS"
    assert units["1 These terms apply to bookings of 10 bikes or more."] == f"{title} › Scope"  # "1." is a marker
    assert units["A group pays a deposit of 50,000 won per bike."] == f"{title} › DEPOSITS (refundable)"
    assert units["Bikes are returned to the dock they were rented from before 19:00."] == f"{title} › Returns"


def test_chinese_numbered_sections():
    units = _headings(REPORT_ZH)
    cause = "前一天晚上更新的闸锁软件把时区改成了 UTC，闸锁因此拒绝当天的还车请求。"
    assert units[cause].endswith("二、原因")
    assert units[cause].startswith("海风自行车 事故报告")


def test_the_steps_of_a_numbered_list_are_not_headings():
    units = _headings(STEPS_EN)
    assert {"open the app", "scan the code on the dock", "pull the bike out"} <= set(units)
    lines = STEPS_EN.splitlines()
    assert plain_heading(lines, 2) is None and plain_heading(lines, 3) is None


def test_markdown_documents_keep_their_own_headings_only():
    text = "# Bikes\n\n## Deposits\n\nSAFETY FIRST\n\nA group pays 50,000 won per bike.\n"
    units = split_units(text)[0]
    assert [u.heading for u in units] == ["Bikes › Deposits", "Bikes › Deposits"]
    assert all(u.embeds_heading for u in units)


def test_a_plain_heading_is_structure_not_embedded_text():
    """The sentence vector of a plain-text document is its sentence alone (embedding the plain heading with it lost
    as many dev answers as it won: measured in docs/evaluation.md); the heading serves the section rules."""
    unit = next(u for u in split_units(NOTICE_KO)[0] if u.text.startswith("나이"))
    assert not unit.embeds_heading and unit.embed_text() == unit.text


def test_stored_sentence_rows_of_the_older_splitter_are_stale(tmp_path):
    """A row's hash includes the splitter's version, so a knowledge base ingested before plain headings existed
    has its sentences split again instead of reusing units without headings."""
    import hashlib
    import json
    import sqlite3

    import numpy as np

    from rag.sentences import SentenceStore

    store = SentenceStore(tmp_path)
    units = split_units(NOTICE_KO)[0]
    store.write([("c:0", "c", NOTICE_KO, units, np.ones((len(units), 4), np.float32))], "e5")
    assert [u.heading for u in store.get({"c:0": NOTICE_KO}, "e5")["c:0"].units] == [u.heading for u in units]
    # the same chunk as the splitter before version 2 stored it: the old hash of the text, units without headings
    old_hash = hashlib.sha1(NOTICE_KO.encode()).hexdigest()[:16]
    with sqlite3.connect(store.path) as conn:
        conn.execute("UPDATE sentences SET text_hash = ?, units = ?", (old_hash, json.dumps([["", "나이: 만 16세 이상"]])))
    assert store.get({"c:0": NOTICE_KO}, "e5") == {}


def _answer(settings, question: str, source: str, text: str):
    engine = OfflineEngine(settings, clock=lambda: date(2026, 12, 1))
    doc = Retrieved(id=f"{source}:0", text=text, source=source, score=1.0, tool="vector", doc_id=source,
                    chunk_index=0)
    return engine.generate(question, [doc], [Grade("correct", 0.8, "test")], "answer")


@pytest.mark.parametrize("question", [
    "2026年2月码头站闸锁故障的真正原因是什么？",
    "What really caused the dock locks to fail in February 2026?",
])
def test_a_cause_question_quotes_the_cause_section_of_a_plain_text_report(settings, question):
    answer = _answer(settings, question, "report.txt", REPORT_ZH)
    conclusion = answer.text.splitlines()[0]
    assert "UTC" in conclusion, answer.text
    assert "二、原因" in answer.reason, answer.reason


def test_a_procedure_question_quotes_the_numbered_steps_under_their_plain_heading(settings):
    answer = _answer(settings, "자원봉사는 어떤 절차로 신청해요?", "notice.txt", NOTICE_KO)
    for step in ("온라인으로 신청서를 낸다.", "사서와 면담한다.", "첫 활동 날 안전 교육을 받는다."):
        assert step in answer.text, answer.text
