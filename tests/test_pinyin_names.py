"""Issue 8, nineteenth session: a Chinese name written in Latin letters is written in pinyin ("Qujiang" 曲江, "Suzhou"
苏州, "Hemai" 禾麦). Key-term matching reads every 2-4 character window of a Chinese text in toneless pinyin
(``pypinyin``) beside the Sino-Korean reading, in both directions; a window with a function character is no name
("我们" spells the English word "women"). Texts written for this test."""
from __future__ import annotations

from rag.engines.offline.coverage import coverage_of
from rag.romanize import han_term_pinyin_key, pinyin_name_keys

JV_ZH = "合资酒店位于西安市曲江新区，共有 210 间客房。我们的合作伙伴是长安文旅集团。"


def test_windows_of_a_chinese_run_in_pinyin():
    keys = pinyin_name_keys(JV_ZH)
    assert {"xian", "qujiang", "changan", "wenlv"} <= keys
    assert "women" not in keys  # 我们: a function character is in the window
    assert han_term_pinyin_key("苏州") == "suzhou"
    assert han_term_pinyin_key("我们") == "" and han_term_pinyin_key("Suzhou") == ""


def test_an_english_name_meets_a_chinese_text_and_back():
    cov = coverage_of(["qujiang", "rooms", "women"], JV_ZH)
    assert cov.credit["qujiang"] == 1.0 and "qujiang" in cov.how["qujiang"], cov.how
    assert cov.credit.get("women", 0.0) == 0.0, cov.how
    back = coverage_of(["曲江", "苏州"], "The joint-venture hotel is in Qujiang, Xi'an; the franchise partner is in Suzhou.")
    assert back.credit["曲江"] == 1.0 and back.credit["苏州"] == 1.0, back.how
