"""Issue 8: a question that asks several things gets a quoted sentence for each.

"订蛋糕要提前几天？定金交多少？" asks two values, usually stated in two sentences. The best sentences for the whole
question often state one of them; the answer then misses the other although the document states it (a silent
failure). ``parts.asked_parts`` splits the question by the rules of the languages (question marks; "and" before an
English question word) and selection quotes the best sentence for each part too, when something in the context
speaks to that part (a key term of the part, or a close meaning; a value of the asked kind).

Documents written for this test (a tea-house's order notice in Chinese, a climbing gym's first-visit guide in
English, a Korean library notice); real knowledge base, real embedder, no mocks.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.parts import asked_parts
from rag.tools.vector import VectorTool

TEXTS = {
    "teahouse_orders_zh.md": ("# 茶馆团体订餐须知\n\n"
                              "团体订餐须至少提前 3 天预订。\n"
                              "每桌最多坐 12 人。\n"
                              "店内提供免费无线网络。\n"
                              "预订时须支付订餐总价的 20% 作为定金。\n"
                              "周一店休，其余日子上午十点开门。\n"),
    "climbing_first_visit_en.md": ("# Your first visit to Granite Hall\n\n"
                                   "Welcome to Granite Hall, the bouldering gym by the river.\n"
                                   "Bring photo ID so that we can register you at the front desk.\n"
                                   "Lockers are free; bring your own padlock.\n"
                                   "Chalk is sold at the counter.\n"
                                   "The safety induction for new climbers lasts 25 minutes.\n"
                                   "Children under 14 climb with an adult.\n"),
    "library_notice_ko.md": ("# 도서관 이용 안내\n\n"
                             "도서관은 월요일에 쉰다.\n책은 한 번에 다섯 권까지 빌릴 수 있다.\n"
                             "열람실에서는 음식을 먹을 수 없다.\n복사기는 2층에 있다.\n"),
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("question-parts"), TEXTS)
    yield kb
    kb.close()


@pytest.fixture(scope="module")
def engine(kb):
    return OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1))


@pytest.mark.parametrize("question, parts", [
    ("苏州店订生日蛋糕的话要提前几天啊？定金交多少？", ["苏州店订生日蛋糕的话要提前几天啊", "定金交多少"]),
    ("Starting next week. What do I need to bring, and how long is the course?",
     ["Starting next week. What do I need to bring", "how long is the course"]),
    ("Which line is faster, A or B, and by how much per hour?", ["Which line is faster, A or B", "how much per hour"]),
    ("특품이랑 상품은 당도가 얼마나 차이 나요? 각각 몇 브릭스인지 알려 주세요.",
     ["특품이랑 상품은 당도가 얼마나 차이 나요", "각각 몇 브릭스인지 알려 주세요"]),
    ("Who leads the Atlas team, and which city does she work in?",
     ["Who leads the Atlas team", "which city does she work in"]),
    # one question: a relative clause, a statement after it, a plain "and"
    ("Who leads the team, which built Atlas?", ["Who leads the team, which built Atlas?"]),
    ("협약은 언제까지 유효해? 알려 줘.", ["협약은 언제까지 유효해? 알려 줘."]),
    ("Tell me the hours and what they cover", ["Tell me the hours and what they cover"]),
    # a money word alone asks for an amount (answertype: "no-show fee?"), so the piece before "and what" is a part
    ("Tell me the fees and what they cover", ["Tell me the fees", "what they cover"]),
    ("Atlas를 만든 팀의 팀장은 누구야?", ["Atlas를 만든 팀의 팀장은 누구야?"]),
])
def test_asked_parts(question, parts):
    assert asked_parts(question) == parts


def answer_of(kb, engine, question):
    docs = VectorTool(kb, kb.settings).run(question, 4)
    grades = [engine.grade(question, d) for d in docs]
    return engine.generate(question, docs, grades, "answer")


@pytest.mark.parametrize("question, facts, by_part", [
    # the best sentences for the whole question state the induction only; part 1 adds what to bring
    ("What should I bring on my first visit, and how long is the safety induction?", ["photo ID", "25 minutes"], 1),
    ("How long is the safety induction and what ID do I need?", ["25 minutes", "photo ID"], 2),
    # both values in the quotes already (a sentence that adds a key term); nothing is added twice
    ("订餐要提前几天？定金是多少？", ["3 天", "20%"], 0),
])
def test_each_part_of_the_question_is_quoted(kb, engine, question, facts, by_part):
    answer = answer_of(kb, engine, question)
    assert not answer.abstained, answer.text
    for fact in facts:
        assert fact in answer.text, answer.text
    if by_part:
        assert f"best match for part {by_part} of the question" in answer.reason, answer.reason
    evidence = [line for line in answer.text.splitlines() if line.startswith("- ")]
    assert len(evidence) == len(set(evidence)), answer.text


def test_a_part_nothing_in_the_context_speaks_to_gets_no_sentence(kb, engine):
    # "what time do lockers close": no sentence says when anything closes, so nothing is quoted for that part
    answer = answer_of(kb, engine, "How long is the safety induction, and what time do the lockers close?")
    assert "25 minutes" in answer.text
    assert "best match for part 2" not in answer.reason, answer.reason


def test_a_single_question_quotes_as_before(kb, engine):
    answer = answer_of(kb, engine, "How long is the safety induction?")
    assert "25 minutes" in answer.text and "best match for part" not in answer.reason
