"""Issue 8: the topic of the asking clause must be in a Korean document that answers.

"솔바람 패스에 학생 회원 요금이 있다던데, 학생은 연회비를 얼마 내요?" asks what a student pays. The membership page states
the annual fee of every member ("연회비는 45,000원이고 …") and never names students: its key-term coverage (패스,
회원, 연회비) and its stated amount graded it correct, and the agent answered 45,000원 with confidence (dev corpus P,
trap-03: a trap, the documents have no student rate). The noun marked with 은 / 는 in the clause that holds the
question word names whom or what the asked value is for; a Korean text that never names it states the value for
something else, so it is held at ambiguous. A question that asks several things is left alone (a document may answer
another part, about another topic). Korean grammar, not tuned; documents written for this test."""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.coverage import question_terms
from rag.engines.offline.grading import _topic_missing
from tests.support.kb import best_grade

TEXTS = {
    "hanbit_pass.md": (
        "# 한빛 패스 안내\n\n"
        "한빛 패스는 1년 단위 유료 멤버십이다.\n"
        "연회비는 40,000원이고 가입한 날부터 1년 동안 유효하다.\n"
        "회원은 상영 요금의 절반만 낸다.\n"),
    "harbor_library.md": (
        "# 바다도서관 이용 안내\n\n"
        "바다도서관 어린이 회원의 연회비는 10,000원이다.\n"
        "어린이 열람실은 오후 6시에 문을 닫는다.\n"),
}
CHILD_Q = "한빛 패스에 어린이 회원도 있다던데, 어린이는 연회비를 얼마 내요?"


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("asking-topic"), TEXTS)
    yield kb
    kb.close()


@pytest.fixture(scope="module")
def engine(kb):
    return OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1))


def test_a_document_that_never_names_the_asked_topic_is_not_the_answer(kb, engine):
    _, g = best_grade(kb, engine, CHILD_Q, "hanbit_pass.md")
    assert g.label != "correct" and "topic '어린'" in g.reason, g.reason


def test_the_topic_named_in_the_document_passes(kb, engine):
    _, g = best_grade(kb, engine, "한빛 패스 회원은 연회비를 얼마 내요?", "hanbit_pass.md")
    assert g.label == "correct", g.reason
    _, g = best_grade(kb, engine, "바다도서관 어린이는 연회비를 얼마 내요?", "harbor_library.md")
    assert "topic" not in g.reason, g.reason


@pytest.mark.parametrize("question,text,topic", [
    (CHILD_Q, "연회비는 40,000원이다.", "어린"),  # the key term, as stripped
    (CHILD_Q, "어린이 회원의 연회비는 10,000원이다.", ""),  # named: the text may state its value
    (CHILD_Q, "The annual fee is 40,000 won.", ""),  # an English text writes it otherwise: left to meaning
    ("연회비는 얼마예요?", "회비는 40,000원이다.", "연회비"),
    ("어린이는 연회비를 얼마 내고, 열람실은 몇 시에 닫아요?", "연회비는 40,000원이다.", ""),  # two asked parts
    ("연회비를 얼마 내요?", "연회비는 40,000원이다.", ""),  # no topic
    ("클린룸에서 제일 먼저 착용하는 게 뭐예요?", "방진모를 먼저 쓴다.", ""),  # 착용하는: an adnominal ending, no topic
    ("어린이는 도서관에 오면, 연회비를 얼마 내요?", "연회비는 40,000원이다.", ""),  # the topic of another clause
])
def test_the_asking_topic(question, text, topic):
    terms, _ = question_terms(question)
    why = _topic_missing(question, terms, text)
    assert (f"topic '{topic}'" in why) if topic else why == "", why
