"""A reason the question states is not a cause it asks for (twenty-eighth session, issue 8).

"…애들 때문에 추가 침대 하나 넣으면 그건 1박에 얼마예요?" ("because of the kids, if we add an extra bed, how much is it a
night?") asks for an amount; "때문에" there joins the asker's reason to the clause that asks, like "because" in English
or "因为" in Chinese, neither of which marks a cause question. It had been read as a cause question, so the answer
quoted the "## 원인" (root cause) section of an unrelated incident review instead of the room policy's price.
"때문" now asks for a cause only as the question's predicate ("…때문이었어?", "…때문 아니었어?", "…때문인가요?") or
after a question word ("뭐 때문에", "무슨 일 때문에").

Documents written for this test: a room policy (pet and extra-bed charges) and an incident review with a root-cause
section. Real knowledge base, real embedder, no mocks.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.answertype import asked_type
from rag.engines.offline.semantics import question_intents
from rag.variants import run_question


@pytest.mark.parametrize("question", [
    "그리고 애들 때문에 추가 침대 하나 넣으면 그건 1박에 얼마예요?",
    "정전 때문에 백신 몇 도스 폐기했어요?",
    "비 때문에 행사가 취소되면 환불돼요?",
    "공사 때문에 문 닫는 날이 언제예요?",
])
def test_a_reason_the_question_states_asks_no_cause(question):
    assert "cause" not in question_intents(question)
    assert not asked_type(question).cause


@pytest.mark.parametrize("question", [
    "2월 장애 진짜 원인 뭐였어? 로그인 서버 때문 아니었어?",
    "회사가 처음 알게 된 건 어디로 들어온 신고 때문이었어?",
    "뭐 때문에 배송이 늦었어요?",
    "무슨 일 때문에 취소됐어?",
    "어떤 문제 때문에 멈췄나요?",
    "보일러 때문인가요?",
    "방이 모자랐던 거, 여행사이트 서버 때문이라고 하지 않았어요?",
])
def test_because_as_the_asked_predicate_or_after_a_question_word_asks_a_cause(question):
    assert "cause" in question_intents(question)
    assert asked_type(question).cause


TEXTS = {
    "room_policy.md": (
        "# 객실 이용 규정\n\n"
        "## 반려동물\n\n"
        "반려동물은 해운대점과 광안점의 지정 객실에서만 함께 묵을 수 있다. 몸무게 10kg 이하의 개나 고양이 한 마리까지이며, "
        "1박에 30,000원을 받는다.\n\n"
        "## 어린이와 추가 침대\n\n"
        "만 12세 이하 어린이는 보호자와 같은 침대를 쓰면 객실당 2명까지 무료다. 추가 침대는 1박 40,000원이며 조식은 "
        "포함하지 않는다.\n"),
    "review_2025_09_overbooking.md": (
        "# 2025년 9월 해운대점 초과 예약 검토\n\n"
        "## 개요\n\n"
        "추석 연휴 첫날 밤 해운대점에 예약한 손님 열두 팀이 방을 받지 못해 다른 호텔로 옮겼다.\n\n"
        "## 원인\n\n"
        "실제 원인은 예약 시스템에 들어 있던 초과 예약 허용치 6%였다. 다른 지점의 설정을 그대로 복사해 쓰는 바람에 "
        "성수기에도 이 값이 적용되었다. 택시비를 내 드리고 1박 무료 숙박권을 드렸다.\n"),
}
QUESTION = "다음 달에 아이들이랑 해운대점에 가는데요, 애들 때문에 추가 침대 하나 넣으면 그건 1박에 얼마예요?"


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("stated-reason"), TEXTS)
    yield kb
    kb.close()


def test_the_answer_quotes_the_price_not_the_root_cause_section(kb):
    engine = OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1))
    run = run_question(QUESTION, kb, engine, kb.settings)
    assert run.error is None, run.error
    assert "40,000원" in run.answer.splitlines()[0], run.answer
    assert "초과 예약" not in run.answer.splitlines()[0], run.answer
