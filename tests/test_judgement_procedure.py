"""Issue 8: a question that asks how to do something gets the steps (the list under the matching heading, in
document order), not the one step that matches best. Documents written for this test."""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.semantics import question_intents
from rag.variants import run_question

TEXTS = {
    "travel_expense_ko.md": (
        "# 출장비 정산 안내\n\n출장비는 출장이 끝난 뒤 30일 안에 정산해야 한다. 해외 출장의 일비는 하루 50달러이다.\n\n"
        "## 정산하기\n\n1. 영수증을 스캔해 경비 시스템에 올린다.\n2. 출장 보고서를 작성해 첨부한다.\n"
        "3. 팀장의 승인을 받는다.\n4. 재무팀이 확인하면 다음 달 급여와 함께 지급된다.\n\n"
        "## 문의\n\n정산 관련 문의는 재무팀 내선 2040으로 한다.\n"),
    "laptop_en.md": (
        "# Laptop replacement\n\nLaptops are replaced every four years.\n\n## Requesting a new laptop\n\n"
        "1. Open a ticket in the IT portal.\n2. Attach your manager's approval.\n"
        "3. Bring the old laptop to the IT desk on pickup day.\n\n## Data\n\nThe IT desk wipes old laptops within a week.\n"),
    "canteen_zh.md": (
        "# 员工食堂说明\n\n食堂午餐时间为十一点半到一点半。\n每份午餐的价格为 15 元。\n\n## 如何充值饭卡\n\n"
        "1. 在自助机上刷饭卡。\n2. 选择充值金额。\n3. 用手机扫码付款。\n"),
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("judgement-procedure"), TEXTS)
    yield kb
    kb.close()


@pytest.mark.parametrize("question, steps", [
    ("출장비는 어떻게 정산하나요?", ["영수증을 스캔해", "출장 보고서를", "팀장의 승인을", "재무팀이 확인하면"]),
    ("출장비 정산 절차를 알려줘", ["영수증을 스캔해", "출장 보고서를", "팀장의 승인을", "재무팀이 확인하면"]),
    ("How do I get a new laptop?", ["Open a ticket", "Attach your manager", "Bring the old laptop"]),
    ("노트북 교체는 어떻게 신청해?", ["Open a ticket", "Attach your manager", "Bring the old laptop"]),
    ("新笔记本电脑怎么申请？", ["Open a ticket", "Attach your manager", "Bring the old laptop"]),
])
def test_procedure_question_quotes_every_step_in_order(kb, question, steps):
    engine = OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1))
    run = run_question(question, kb, engine, kb.settings)
    assert run.error is None, run.error
    assert not run.abstained and not run.partial, run.answer
    positions = [run.answer.find(s) for s in steps]
    assert all(p >= 0 for p in positions), run.answer
    assert positions == sorted(positions), run.answer


@pytest.mark.parametrize("question, procedure", [
    ("출장비는 어떻게 정산하나요?", True),
    ("How do I get a new laptop?", True),
    ("饭卡怎么充值？", True),
    ("What should I do to return a laptop?", True),
    ("근무 시간은 어떻게 되나요?", False),  # asks for a value
    ("Atlas와 Nuri는 어떻게 다른가요?", False),  # a comparison
    ("食堂的午饭怎么样？", False),  # an opinion
    ("How many laptops does the IT desk keep?", False),
])
def test_procedure_questions_are_recognised_by_their_shape(question, procedure):
    assert ("procedure" in question_intents(question)) is procedure


# ---- comparisons: one sentence per compared side, matched by meaning when the sides are not names as written ----
COMPARE_TEXTS = {
    "plans_ko.md": ("# 요금제 안내\n\n## 베이직 요금제\n\n베이직 요금제는 월 9,900원이며 데이터 5GB를 제공한다.\n"
                    "통화는 100분까지 무료이다.\n\n## 프리미엄 요금제\n\n프리미엄 요금제는 월 29,900원이며 데이터를 무제한으로 "
                    "쓸 수 있다.\n해외 로밍이 한 달에 3일 무료이다.\n"),
    "passes_en.md": ("# Rail passes\n\nThe Flex pass lets you travel on any 5 days within one month and costs 180 euros.\n"
                     "The Continuous pass covers every day for 15 days in a row and costs 240 euros.\n"
                     "Both passes include seat reservations on regional trains.\n"),
    "tea_zh.md": "# 茶叶介绍\n\n绿茶不经过发酵，口感清爽，适合用 80 度的水冲泡。\n红茶是全发酵茶，口感醇厚，适合用 95 度以上的水冲泡。\n",
}


@pytest.fixture(scope="module")
def compare_kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("judgement-compare"), COMPARE_TEXTS)
    yield kb
    kb.close()


@pytest.mark.parametrize("question, sides", [
    ("베이직 요금제와 프리미엄 요금제는 어떻게 다른가요?", ["9,900원", "29,900원"]),
    ("Flex pass와 Continuous pass의 차이는?", ["180 euros", "240 euros"]),
    ("绿茶和红茶有什么区别？", ["80 度", "95 度"]),
])
def test_comparison_quotes_one_sentence_per_side(compare_kb, question, sides):
    engine = OfflineEngine(compare_kb.settings, clock=lambda: date(2026, 12, 1))
    run = run_question(question, compare_kb, engine, compare_kb.settings)
    assert run.error is None, run.error
    assert not run.abstained and not run.partial, run.answer
    assert all(s in run.answer for s in sides), run.answer


@pytest.mark.parametrize("question, sides", [
    ("베이직 요금제와 프리미엄 요금제는 어떻게 다른가요?", ["베이직 요금제", "프리미엄 요금제"]),
    ("What is the difference between the basic plan and the premium plan?", ["basic plan", "premium plan"]),
    ("绿茶和红茶有什么区别？", ["绿茶", "红茶"]),
    ("How do green tea and black tea differ?", ["green tea", "black tea"]),
    ("What is the basic plan?", []),
])
def test_compared_sides(question, sides):
    from rag.engines.offline.semantics import compared_sides

    assert compared_sides(question) == sides
