"""Issue 8: what a question word leaves behind is no key term. A Chinese question word with its classifier or unit
(哪天, 几点, 几天, 多长时间) is one question word, so its classifier does not stick to the next content word as a key
term ("哪天开的" gave "天开", which no document holds and every grade counted as missing); a Korean counter after 몇
with the spoken copula ("몇 명이었어") leaves no term. Questions written for this test."""
from __future__ import annotations

import pytest

from rag.engines.offline.coverage import question_terms
from rag.textutil import key_terms, tokenize


@pytest.mark.parametrize("question, kept, gone", [
    # Chinese: a question word takes its classifier or unit
    ("青石面包第一家店是哪天开的？晚上几点关门？", ["第一家", "晚上", "关门"], ["天开", "点关门"]),
    ("订蛋糕要提前几天？", ["蛋糕", "提前"], ["几天"]),
    ("退房后多长时间内退押金？", ["退房", "押金"], ["长时间", "多长"]),
    # Korean: the spoken copula after a counter leaves the counter, which is no key term
    ("작년 연간 관람객 수는 몇 명이었어?", ["관람객"], ["명이었어", "명"]),
    ("리콜된 선물세트는 몇 개였어?", ["리콜", "선물세트"], ["개였어", "개"]),
])
def test_what_a_question_word_leaves_is_no_key_term(question, kept, gone):
    terms, _ = question_terms(question)
    for t in kept:
        assert t in terms, terms
    for t in gone:
        assert t not in terms, terms


def test_bm25_tokens_follow_the_same_cut():
    assert "天开" not in tokenize("哪天开的")
    assert "关门" in tokenize("晚上几点关门") and "点关" not in tokenize("晚上几点关门")
    assert key_terms("几点") == []
