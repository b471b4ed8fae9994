"""A general-knowledge question is answered directly unless the documents speak of what it asks (twenty-fourth
session, issue 8; documents written for this test).

"中国的首都是哪座城市？" over documents that mention China (a launch in China, a partner in Shanghai) but never a
capital: the documents cannot answer it, so it is general knowledge (direct), as it already was where they do not
mention China at all. Where a document speaks of the subject and the attribute together ("Seoul, the capital of
Korea"), the documents may answer it and it goes to them.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.sentences import store_for
from tests.support.kb import build_kb, make_settings

LAUNCH = ("# 中国发行公告\n\n《潮汐契约》将于 2026 年 4 月在中国大陆上线，由上海的发行商负责运营。\n\n"
          "Studio Neoul is a game studio in Seoul. It launched its game in China in April 2026.\n\n"
          "스튜디오 너울은 2026년 4월 중국에 게임을 출시했다.\n")
CAPITAL = "# Offices\n\nOur head office is in Seoul, the capital of Korea.\n"


@pytest.fixture
def engine_over(tmp_path):
    def make(texts):
        build_kb(tmp_path / "kb", texts).close()
        return OfflineEngine(make_settings(tmp_path / "kb"), clock=lambda: date(2026, 12, 1))
    return make


@pytest.mark.parametrize("question", ["中国的首都是哪座城市？", "What is the capital of China?", "중국의 수도는 어디야?"])
def test_a_subject_the_documents_name_without_the_attribute_is_general_knowledge(engine_over, question):
    engine = engine_over({"launch.md": LAUNCH})
    decision = engine.classify(question, known_entities=[])
    assert decision.strategy == "direct", decision.reason
    assert decision.signals["rule"] == "general_knowledge" and decision.signals.get("attribute"), decision.signals


def test_the_documents_that_speak_of_both_are_asked(engine_over):
    engine = engine_over({"launch.md": LAUNCH, "offices.md": CAPITAL})
    decision = engine.classify("What is the capital of Korea?", known_entities=[])
    assert decision.strategy != "direct", decision.reason


def test_mentions_together_means_one_chunk(tmp_path):
    build_kb(tmp_path / "kb", {"launch.md": LAUNCH, "offices.md": CAPITAL}).close()
    store = store_for(tmp_path / "kb")
    assert store.mentions("China") and store.mentions("capital")
    assert store.mentions("Korea", "capital") and store.mentions("KOREA", "Capital")  # LIKE: ASCII case-insensitive
    assert not store.mentions("China", "capital")  # in the knowledge base, but never in one chunk
    assert store.mentions("中国", "上海") and not store.mentions("中国", "首都")


def test_a_korean_frame_holds_its_subject(engine_over):
    # "중국의 수도": the subject is inside the frame, not the words after it ("어디야")
    engine = engine_over({"launch.md": LAUNCH})
    assert engine.classify("중국의 수도는 어디야?", known_entities=[]).signals["subject"] == ["중국"]


@pytest.mark.parametrize("question", ["QST의 약자는 뭐야?", "What is the abbreviation for QST?", "QST是什么的缩写？"])
def test_an_abbreviation_the_documents_define_goes_to_them(engine_over, question):
    # documents define an abbreviation in brackets, not by the word "abbreviation": no attribute is required
    engine = engine_over({"teams.md": "# Teams\n\nQST (Quality Safety Team) checks every release.\n"})
    assert engine.classify(question, known_entities=[]).strategy != "direct"


def test_a_water_bill_is_no_capital(engine_over):
    # "수도 요금" (water bill) asks the documents about the branch, whatever the frame "…의 수도" looks like
    engine = engine_over({"launch.md": LAUNCH, "bills.md": "# 공과금\n\n지점의 수도 요금은 월 30만 원이다.\n"})
    decision = engine.classify("중국 지점의 수도 요금은 얼마야?", known_entities=[])
    assert decision.strategy != "direct", decision.reason


def test_the_subject_inside_the_frame_comes_before_a_leading_word(engine_over):
    engine = engine_over({"launch.md": LAUNCH})
    decision = engine.classify("그럼 중국의 수도는 어디야?", known_entities=[])
    assert decision.strategy == "direct" and decision.signals["subject"] == ["중국"], decision.reason
