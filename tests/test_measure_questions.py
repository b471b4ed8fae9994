"""Issue 8: an English question that asks for a measured value without "how" ("What sugar level …", "At what
temperature …", "What score …") asks for a number, as 몇 / 多少 do; "how soon / how far in advance" asks for a time
span, "how fast" does not; the answer quotes the sentence that states one. Documents written for this test (a made-up fruit grade, 백록봉)."""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.answertype import asked_type
from rag.types import Grade, Retrieved


@pytest.mark.parametrize("question, label", [
    ("What sugar level does a Baengnokbong need to be sold as the top grade?", "quantity"),
    ("At what temperature are the instruments sterilised?", "temperature"),  # a temperature (twenty-seventh session)
    ("What score did the kitchen get in the inspection?", "quantity"),
    ("What is the speed limit on the pier?", "quantity"),
    ("What age do you need to be to volunteer?", "age"),
    ("What level of access do new hires get?", ""),  # a kind of access, not a measure
    ("Which team runs the booking system?", ""),
    # "how soon / how quickly / how far in advance" ask for a time span, as "how long" does: the answer quotes the
    # sentence that states one ("within one hour"), not the sentence that names the office
    ("If something goes wrong in the lab, how soon do I have to phone the safety office?", "duration"),
    ("How quickly must a lost item be handed to the front desk?", "duration"),
    ("How far in advance do I book the shuttle?", "duration"),
    ("셔틀은 얼마나 미리 예약해야 돼요?", "duration"),
    ("How far is the airport from the hotel?", "length"),  # a distance, not a time span
])
def test_what_kind_of_value_is_asked(question, label):
    assert asked_type(question).label == label


GRADES_KO = ("# 감귤 등급 규정\n\n"
             "이 규정은 조합 선과장에 들어오는 백록봉과 천혜향에 적용한다.\n"
             "등급은 선별 기계가 크기와 색을 재서 정한다.\n"
             "백록봉은 당도 13.0브릭스 이상일 때만 특품으로 출하한다.\n")


@pytest.fixture
def engine(data_dir):
    from tests.support.kb import make_settings

    return OfflineEngine(make_settings(data_dir), clock=lambda: date(2026, 12, 1))


def test_the_answer_quotes_the_sentence_that_states_the_measure(engine):
    doc = Retrieved(id="grades_ko.md#0", text=GRADES_KO, source="grades_ko.md", score=1.0, tool="vector",
                    doc_id="grades_ko.md", chunk_index=0)
    answer = engine.generate("What sugar level does a Baengnokbong need to be sold as the top grade?", [doc],
                             [Grade("correct", 0.8, "test")], "answer")
    conclusion = answer.text.splitlines()[0]
    assert "13.0" in conclusion, answer.text


@pytest.mark.parametrize("question", ["网速有多快？", "이 차는 얼마나 빨리 달릴 수 있어?"])
def test_how_fast_is_no_time_span(question):
    # "多快" / "얼마나 빨리" as often ask for a speed as for a deadline: not read as a time span
    assert asked_type(question).label != "duration"
