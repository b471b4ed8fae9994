"""Issue 8: a Korean place name written in Chinese characters meets its Latin spelling in key-term matching.

A Chinese document writes a Korean town by its characters (瑞霞浦, read 서하포); an English question writes it
Seohapo. Neither BM25 nor the Hangul name keys can meet them, and the grade's rule that a document must hold one
of the question's asked-about words marked the right document incorrect. Each character's Sino-Korean reading,
romanized, makes the bridge (``rag.romanize.han_name_keys``), in both directions. Documents written for this test;
the town is made up.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.coverage import coverage_of
from rag.romanize import han_name_keys, han_term_name_key
from rag.types import Retrieved

BRANCH_ZH = ("# 瑞霞浦分院中文服务指南\n\n"
             "瑞霞浦分院位于瑞霞浦市松岩洞，每周二至周六开放。\n"
             "分院接受 Visa、Mastercard、银联卡和支付宝付款，暂时不支持微信支付。\n")
BRANCH_EN = ("# The Seohapo branch\n\n"
             "The Seohapo branch opens at 9 am and closes at 6 pm.\n")


def test_the_reading_of_every_window_is_romanized():
    keys = han_name_keys("瑞霞浦分院位于瑞霞浦市")
    assert "seohapo" in keys and "seoha" in keys
    assert han_term_name_key("瑞霞浦") == "seohapo"
    assert han_term_name_key("浦") == ""  # one character: too short to be a name
    # a run with a character that has no reading of one syllable is not aligned, so it gives no key
    assert han_name_keys("abc") == set()


@pytest.mark.parametrize("term, text, matched", [
    ("seohapo", BRANCH_ZH, True),  # Latin term, Chinese text
    ("瑞霞浦", BRANCH_EN, True),  # Chinese term, capitalised Latin word
    ("seohapo", "瑞霞大楼在市中心。", False),  # only part of the name's characters
    ("jeju", "第一主任负责这个项目。", False),  # 제일주임: no window reads 제주
    ("瑞霞浦", "the seohapo road", False),  # a lowercase word is not a name
])
def test_key_term_matching_reads_chinese_names(term, text, matched):
    cov = coverage_of([term], text)
    assert (cov.credit[term] > 0) is matched, cov.how
    if matched:
        assert cov.how[term].startswith("via romanized reading"), cov.how


def test_the_grade_no_longer_rejects_the_document_that_names_the_place(data_dir):
    from tests.support.kb import make_settings

    engine = OfflineEngine(make_settings(data_dir), clock=lambda: date(2026, 12, 1))
    doc = Retrieved(id="branch_zh.md#0", text=BRANCH_ZH, source="branch_zh.md", score=1.0, tool="vector",
                    doc_id="branch_zh.md", chunk_index=0)
    grade = engine.grade("Which mobile wallet can I use to pay at the Seohapo branch?", doc)
    assert "none of the asked-about words" not in grade.reason, grade.reason
    # the name is lexical evidence the grade reports (the label itself also weighs meaning, which this test
    # leaves to the knowledge base's own sentence statistics)
    assert "seohapo" in grade.reason and "via romanized reading" in grade.reason, grade.reason
