"""Two parts of a question that ask the same kind of value do not share a sentence stating only one
(twenty-eighth session, issue 8).

"Neoul 平时拿多少比例的分成？单月净收入超过五千万元的那部分又是多少？": both parts rank the sentence with the raised rate
("…超过 5,000 万元的部分…提高至 32%") first — it holds more of either part's words than the base rate's sentence. The
second part found it quoted already and was taken as answered, so the base rate (28%) was never quoted. A sentence one
part took, stating one value of the kind both parts ask, no longer answers the other: that part quotes the same
document's next sentence that states such a value on its topic. A sentence stating both values ("09:00부터 18:00까지")
still answers both parts.

Documents written for this test. Real knowledge base, real embedder, no mocks.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.variants import run_question

TEXTS = {
    "zh_licence_terms.txt": (
        "《星港物语》授权合作协议要点\n\n"
        "一、分成\n"
        "海鸥工作室获得净收入的 25%，蓝帆网络获得其余部分。\n"
        "单月净收入超过人民币 3,000 万元的部分，海鸥工作室的分成比例提高至 30%。\n"
        "分成每月结算一次，以人民币支付。\n\n"
        "二、期限\n"
        "协议期限为三年，期满后可续约一次。\n"),
    "en_company_profile.md": (
        "# Gull Studio\n\n"
        "Gull Studio makes mobile games in Busan. About 60% of its revenue comes from Korea.\n"
        "It has 48 employees and opened a second office in 2024.\n"),
    "en_hours.md": (
        "# Gull Studio visitor desk\n\n"
        "The visitor desk is open from 09:00 to 18:00 on weekdays.\n"
        "Parking costs 2,000 won per hour.\n"),
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("two-parts-one-value"), TEXTS)
    yield kb
    kb.close()


def _ask(kb, question):
    run = run_question(question, kb, OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1)), kb.settings)
    assert run.error is None, run.error
    return run


def test_each_part_quotes_its_own_rate(kb):
    run = _ask(kb, "海鸥工作室平时拿多少比例的分成？单月净收入超过三千万元的那部分又是多少？")
    # the raised rate's sentence holds more of either part's words; the base rate is quoted beside it
    assert "30%" in run.answer and "25%" in run.answer, run.answer


@pytest.mark.parametrize("question", ["When does the visitor desk open on weekdays? And when does it close?",
                                      "What time does the visitor desk open? And when does it close?"])
def test_a_sentence_stating_both_values_still_answers_both_parts(kb, question):
    run = _ask(kb, question)
    assert "09:00" in run.answer and "18:00" in run.answer, run.answer
    generate = [s for s in run.steps if s.node in ("generate", "partial_answer")][-1]
    assert "another part's only value" not in generate.reason, generate.reason
