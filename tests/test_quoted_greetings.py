"""Issue 8: a greeting or thanks inside quotes is what a message is about, not a greeting to the assistant.

"'감사합니다'를 중국어로 번역해 줘." asks for a translation of the quoted word; it was answered "안녕하세요! …" as small
talk, a confident non-answer. Routing and the direct answer now read the greeting outside quotes (one helper,
``text.greeting_in``)."""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.text import greeting_in


@pytest.fixture
def engine(data_dir):
    from tests.support.kb import make_settings

    return OfflineEngine(make_settings(data_dir), clock=lambda: date(2026, 12, 1))


@pytest.mark.parametrize("message, greets", [
    ("'감사합니다'를 중국어로 번역해 줘.", False),
    ("“谢谢”用英语怎么说？", False),
    ('Translate "good morning" into Korean.', False),
    ("감사합니다!", True),
    ("Thanks, that's all for today", True),  # an apostrophe is no quote
    ("안녕하세요, 'Atlas'가 뭐예요?", True),  # a greeting outside the quotes still counts
])
def test_a_quoted_greeting_is_not_one(message, greets):
    assert bool(greeting_in(message)) is greets


def test_a_translation_of_a_thanks_is_no_small_talk(engine):
    question = "'감사합니다'를 중국어로 번역해 줘."
    decision = engine.classify(question, [])
    assert decision.strategy == "direct" and decision.signals["rule"] == "translation", decision
    answer = engine.generate(question, [], [], "direct")
    assert "안녕하세요" not in answer.text, answer.text
    assert "small talk" not in answer.reason, answer.reason
    # a thanks on its own is still small talk
    assert engine.classify("감사합니다!", []).signals["rule"] == "small_talk"
