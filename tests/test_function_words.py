"""Issue 8: the words of a Korean question that qualify its asking, and name nothing a document could hold, are not
key terms.

A spoken question says "클린룸 들어갈 때 방진복 세트 중에 제일 먼저 착용하는 게 뭐예요?": the adverbs (제일, 먼저), pronouns
(그거) and 것 with a particle (게) were asked-about words, so the sentence that answers ("방진모 → 마스크 → … 순서로
입는다") lost coverage to one that merely repeats 방진복 (dev corpus D, proc-01). Korean is read with kiwipiepy's tags
(an adverb, a pronoun, an interjection, 아니, 것 + particle, 되- after -아야 "must"). The same for English and Chinese
by a closed list of such words ("really", "something", "一共") was measured and not kept (docs/evaluation.md).
Language, not a corpus: the questions below are in none of the evaluation sets."""
from __future__ import annotations

import pytest

from rag.engines.offline.coverage import coverage_of, question_terms
from rag.engines.offline.wordforms import korean_function_words


@pytest.mark.parametrize("question,dropped,kept", [
    ("회의실 예약할 때 제일 먼저 확인하는 게 뭐예요?", {"제일", "먼저", "게"}, {"회의실", "예약", "확인"}),
    ("그거 진짜 배터리 때문이었어요, 아니면 다른 게 문제였어요?", {"그거", "진짜", "게"}, {"배터리", "문제"}),
    ("창고 바닥은 얼마나 자주 닦아야 돼요?", {"자주", "돼요"}, {"창고", "바닥", "닦아"}),
])
def test_function_words_are_not_key_terms(question, dropped, kept):
    terms, focus = question_terms(question)
    assert not dropped & set(terms), terms
    assert kept <= set(terms), terms
    assert not dropped & focus


@pytest.mark.parametrize("question,kept", [
    ("한결재단 장학금은 누가 받아요?", "한결재단"),  # a name kiwi reads partly as an adverb stays one word
    ("첫 상영은 몇 시에 시작해요?", "첫"),  # a determiner (kiwi tags numerals so) is kept
    ("직접 방문해야 하나요?", "직접"),  # too little else is asked: the adverb stays
    ("모두 몇 명이에요?", "모두"),
])
def test_content_words_stay(question, kept):
    terms, _ = question_terms(question)
    assert kept in terms, terms


def test_a_question_without_hangul_has_no_korean_function_words():
    assert korean_function_words("How late can we cancel?") == frozenset()


def test_a_sentence_without_the_adverbs_covers_the_asking_clause():
    terms, focus = question_terms("회의실 예약할 때 제일 먼저 확인하는 게 뭐예요?")
    sentence = "회의실을 예약하려면 먼저 참석 인원을 확인하고, 그다음 장비를 신청한다."
    cov = coverage_of(terms, sentence, focus)
    # before, 제일 and 게 were asked-about words this answering sentence lacks (coverage 3 of 5)
    assert cov.content_terms == ["회의실", "예약", "확인"]
    assert cov.score == 1.0, cov.summary()
