"""Issue 8: a name spelled in the other script is found by key-term coverage, as the graph tool finds it.

An English question names "Coldtrack" or "Legionella"; the Korean document writes 콜드트랙, 레지오넬라균. Romanizing the
Hangul (Revised Romanization: "koldeuteuraek") does not give the English spelling, so grading found none of the
asked-about words and called the document incorrect. Both sides are reduced to the consonant skeleton of
``rag.romanize.loanword_key`` (how Korean spells foreign names); a Latin g before e / i / y is read soft as well, and
"tch" is one sound (Seamwatch → 심워치). Only names: a Latin term the question writes as a name (capitalised, or any
Latin word of a Korean or Chinese question), a capitalised Latin word of the text — the skeleton of a common word
meets too many Korean words ("next" and 한옥스테이 are both n-k-s-t), and a Hangul word must be spelled as a loanword
(a syllable that is no Sino-Korean reading: 신청, 간격, 도서관 met "Seongjin", "Council", "Design"). Language, not tuned: the names below are in
none of the evaluation sets."""
from __future__ import annotations

import pytest

from rag.engines.offline.coverage import coverage_of, credit_months, prepared_text, question_terms
from rag.engines.offline.wordforms import spelled_as_loanword
from rag.romanize import loanword_key


def _credited(question: str, text: str) -> dict[str, str]:
    terms, focus = question_terms(question)
    return credit_months(question, text, coverage_of(terms, text, focus)).how


@pytest.mark.parametrize("question,term,text", [
    ("When did Frostline send the alarm?", "frostline", "프로스트라인이 새벽 3시에 경보를 보냈다."),  # a particle after it
    ("Who sells Gemstone?", "gemstone", "젬스톤이 주문을 받는다."),  # soft g
    ("What does the Dispatcher screen show?", "dispatcher", "디스패처 화면에서 배차를 확인한다."),  # tch
    ("프로스트라인은 언제 경보를 보냈어요?", "프로스트라인", "Frostline sends the alarm to the duty manager."),
])
def test_a_loanword_spelling_is_found(question, term, text):
    how = _credited(question, text)
    assert "loanword" in how.get(term, ""), how


@pytest.mark.parametrize("question,term,text", [
    ("When did Frostline send the alarm?", "frostline", "프로스트 경보는 새벽에 울렸다."),  # another skeleton
    ("Is the boiler fixed?", "boiler", "보일러가 멈췄다."),  # under LOANWORD_KEY_MIN letters ("pr")
    ("Which room is booked for the next night?", "next", "한옥스테이 객실은 모두 찼다."),  # a common word, not a name
    ("플랫폼은 어디예요?", "플랫폼", "the platform is on the left."),  # a common Latin word of the text
    ("신청은 누가 받아요?", "신청", "Seongjin handles every request."),  # 신청 is read from 申請: no loanword
    ("Who chairs the Council?", "council", "회의는 두 달 간격으로 열린다."),  # 간격 (間隔) + the particle 으로
    ("What is Design about?", "design", "도서관은 9시에 연다."),  # 도서관 (圖書館)
])
def test_a_common_word_or_a_short_skeleton_is_not_a_match(question, term, text):
    how = _credited(question, text)
    assert "loanword" not in how.get(term, ""), how


def test_only_a_loanword_spelling():
    assert spelled_as_loanword("콜드트랙") and spelled_as_loanword("레지오넬라")
    assert not spelled_as_loanword("신청") and not spelled_as_loanword("도서관")


def test_the_skeletons():
    assert loanword_key("Dispatcher") == loanword_key("디스패처")
    assert loanword_key("Frostline") == loanword_key("프로스트라인")


def test_a_hangul_name_is_found_by_plain_coverage():
    assert prepared_text("Frostline sends the alarm.").match("프로스트라인")[0] == 1.0
