"""A quoted sentence that starts with a pronoun is quoted with the sentence it refers to (twenty-eighth session,
issue 8).

"- Capital contribution on joining: 1,000,000 won, paid once. It is refunded when a member withdraws after at least
three years of membership.": for "조합 새로 가입하면 출자금 얼마 내야 돼요?" the second sentence matched best by meaning and
was quoted alone: "It" without what it is, and not the amount. A sentence that starts with a pronoun for what the
sentence before it names ("It …", "이 금액은 …", "该费用 …") cannot stand alone; the sentence before it in the same
section is now quoted with it, as a sentence starting "However / 대신 / 但是" brings the one after it.

Documents written for this test. Real knowledge base, real embedder, no mocks.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline.candidates import ANAPHORA_START, Candidate, referent_before
from rag.engines.offline.coverage import coverage_of


@pytest.mark.parametrize("sentence", ["It is refunded when a member withdraws.", "This covers the first year only.",
                                      "이 금액은 탈퇴할 때 돌려준다.", "이는 3년 뒤에 돌려준다.", "该费用在退出时退还。",
                                      "这笔押金退房时退还。", "其金额每年调整一次。"])
def test_sentences_that_start_with_a_pronoun(sentence):
    assert ANAPHORA_START.match(sentence)


@pytest.mark.parametrize("sentence", ["Italy is the largest market.", "Items over 5 kg ship separately.",
                                      "The deposit is refunded on departure.", "이번 달 회비는 5만 원이다.",
                                      "이용료는 1시간에 3만 원이다.", "其他费用另行收取。", "其余部分归青岚所有。",
                                      "Thesis defences are held in June."])
def test_sentences_that_do_not(sentence):
    assert not ANAPHORA_START.match(sentence)


def _c(index, text, heading="Fees", title=False):
    return Candidate(0.5, 0, index, text, coverage_of([], text), 0.5, heading, False, title=title)


def test_the_referent_is_the_sentence_before_in_the_same_section():
    ranked = [_c(0, "Membership fee: 50,000 won a year."), _c(1, "It is waived for members over 70."),
              _c(2, "It is paid in March.", heading="Other")]
    assert referent_before(ranked[1], ranked) is ranked[0]
    assert ranked[0].why == "best match"  # the reason is given where it is quoted, not where it is looked up
    assert referent_before(ranked[2], ranked) is None  # the sentence before is another section's
    assert referent_before(ranked[0], ranked) is None  # no pronoun
    also = [_c(0, "It takes every booking."), _c(1, "It went live in 2021.")]
    assert referent_before(also[1], also) is None  # the sentence before names nothing either


TEXTS = {
    "member_fees.txt": (
        "SEOGWI CITRUS COOPERATIVE\n"
        "Member fees and payments: 2026 season\n\n"
        "- Capital contribution on joining: 800,000 won, paid once. It is refunded when a member leaves after at "
        "least five years of membership.\n"
        "- Annual fee: 120,000 won, due every March.\n"
        "- Sorting charge: 30 won per kilogram, deducted from the settlement.\n"),
    "coop_overview.md": (
        "# 서귀감귤협동조합 소개\n\n"
        "## 개요\n\n"
        "서귀감귤협동조합은 2009년에 세워졌고 조합원은 210명이다. 새로 가입하려면 서귀포시에 과원이 있어야 하고 이사회 심사를 "
        "거쳐야 한다.\n"),
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("pronoun-referent"), TEXTS)
    yield kb
    kb.close()


def test_the_amount_before_it_is_quoted(kb):
    from rag.engines.offline import OfflineEngine
    from rag.variants import run_question

    run = run_question("조합에 새로 가입하면 출자금은 얼마 내야 돼요?", kb,
                       OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1)), kb.settings)
    assert run.error is None, run.error
    assert "800,000" in run.answer, run.answer
    # the trace says why it is quoted
    reason = [s.reason for s in run.steps if s.node in ("generate", "partial_answer")][-1]
    assert run.partial or "names what the quoted sentence before it refers to" in reason, reason
