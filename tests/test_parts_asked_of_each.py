"""One question asked of two things "각각" / "分别" / "各" is two asked parts (twenty-eighth session, issue 8).

"…우리 회사가 받는 브랜드 라이선스 수수료율이랑 매년 받는 관리 지원비는 각각 얼마예요?" asks one thing of two things joined by
"이랑": each needs its own sentence, as "수수료율은 얼마예요? 관리 지원비는요?" would. It was one part, so retrieval ranked
sentences for the whole question only, selection looked for one sentence and the evaluation checked one value. Each
thing with the asking words is now a part (``parts.asked_parts``); a question the other rules split is unchanged, and
the split needs exactly two things of two characters or more and words after the cue.
"""
from __future__ import annotations

import pytest

from rag.engines.offline.parts import asked_parts


@pytest.mark.parametrize("question, parts", [
    ("합작 계약 요약을 보고 있는데요, 브랜드 라이선스 수수료율이랑 매년 받는 관리 지원비는 각각 얼마예요?",
     ["브랜드 라이선스 수수료율 얼마예요?", "매년 받는 관리 지원비는 얼마예요?"]),
    ("알람이 울리는 기준 온도와 측정값 보관 기간은 각각 어떻게 돼요?", ["알람이 울리는 기준 온도 어떻게 돼요?",
                                                    "측정값 보관 기간은 어떻게 돼요?"]),
    ("6寸和8寸的定制蛋糕分别多少钱？", ["6寸 多少钱？", "8寸的定制蛋糕 多少钱？"]),
    ("汉坊和月岭各占多少股份？", ["汉坊 占多少股份？", "月岭 占多少股份？"]),
])
def test_one_question_asked_of_two_things_is_two_parts(question, parts):
    assert asked_parts(question) == parts


@pytest.mark.parametrize("question", [
    "각각 얼마예요?",  # nothing named before the cue
    "세 지점의 영업시간은 각각 어떻게 돼요?",  # no two things joined
    "본점과 분점과 공장은 각각 어디 있어요?",  # three things
    "各地的分店几点开门？",  # 各地: "every place", not "each of"
    "这两家店各有什么特色？",  # no two things joined
    # English has no such cue word: "what are the A and the B" was measured as two parts and lost a dev answer
    "What are the locker key deposit and the yearly limit on staff stays?",
])
def test_questions_that_are_not_split(question):
    assert asked_parts(question) == [question]


def test_a_question_the_other_rules_split_is_unchanged():
    question = "特品和上品的糖度标准差多少？各是多少白利度？"
    assert asked_parts(question) == ["特品和上品的糖度标准差多少", "各是多少白利度"]
