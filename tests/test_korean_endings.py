"""Issue 8: a Korean verb made of a noun and 되다 asks about the noun, however the ending is contracted: "취소돼요"
(되어요), "변경됐어요" (되었어요), "누전돼서" (되어서). Spoken questions use these forms ("비가 얼마나 와야 상영이
취소돼요?"); the documents write "취소한다", "취소를 결정하고". Language, not tuned: the contracted forms of the endings
the stemmer already strips (되 / 했 / 해서 / 였어)."""
from __future__ import annotations

import pytest

from rag.engines.offline.coverage import coverage_of, question_terms


@pytest.mark.parametrize("question,term", [
    ("비가 얼마나 와야 상영이 취소돼요?", "취소"),
    ("주소가 변경됐어요?", "변경"),
    ("작년에 누전돼서 꺼졌다던데 맞아요?", "누전"),
    ("운임표는 언제 적재됐어요?", "적재"),
    ("환불했어?", "환불"),
    ("며칠 전까지 취소돼야 전액 환불이에요?", "취소"),
    ("주소가 변경됐습니다만 반영됐나요?", "변경"),
])
def test_a_contracted_ending_leaves_the_noun(question, term):
    terms, _ = question_terms(question)
    assert term in terms, terms


def test_the_noun_finds_the_sentence_that_writes_another_form():
    terms, _ = question_terms("비가 얼마나 와야 상영이 취소돼요?")
    sentence = "시간당 강수량이 10mm 이상이면 상영 두 시간 전에 취소를 결정하고 문자로 알린다."
    assert "취소" in coverage_of(terms, sentence).covered


@pytest.mark.parametrize("question,noun", [("돼지고기 메뉴는 몇 개예요?", "돼지고기"), ("멧돼지 출몰 지역은 어디예요?", "멧돼지")])
def test_a_noun_with_the_syllable_is_kept(question, noun):
    terms, _ = question_terms(question)
    assert noun in terms, terms
