"""A partial answer lists one more of answer selection's best sentences for each further part the question asks
(twenty-eighth session, issue 8).

Answer selection quotes the whole question's best sentences first and then each further part's best (``_select``); a
partial answer listed a fixed two of them as unconfirmed candidates, so for "…수수료 몇 퍼센트 받아요? 정산은 언제쯤
들어오고요?" the second part's sentence was cut off whenever the whole question's two came first. The count is now
rules.CLOSEST_QUOTES plus one per further part. Measured: clean corpora I–M+O key facts 93 → 94, silent unchanged (a
partial answer is flagged); dev, sample, paraphrases and unseen unchanged.

Answer selection's output is fixed here (its own tests cover what it picks): this checks the listing rule.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.candidates import Candidate
from rag.engines.offline.coverage import coverage_of
from rag.engines.offline.rules import CLOSEST_QUOTES
from rag.types import Grade, Retrieved

SENTENCES = ["제휴 여행사가 보낸 손님이 투숙을 마치면 객실 요금의 8%를 지급한다.",
             "성수기에는 객실의 5%를 단체 손님에게 먼저 배정한다.",
             "지급은 투숙 다음 달 10일에 계좌로 보낸다.",
             "제휴 계약은 1년 단위로 갱신한다."]
TEXT = "# 제휴 약관\n\n" + "\n".join(SENTENCES) + "\n"


@pytest.fixture
def engine(data_dir):
    from tests.support.kb import make_settings

    engine = OfflineEngine(make_settings(data_dir), clock=lambda: date(2026, 12, 1))
    # selection's pick, best first: the whole question's two best, then the second part's best, then one more
    engine._select = lambda question, terms, pool, **kw: [
        Candidate(1.0 - k / 10, 0, k, s, coverage_of(terms, s), 0.5, "제휴 약관", False)
        for k, s in enumerate(SENTENCES)]
    return engine


def _closest(engine, question):
    """The partial answer's first block (selection's best, unconfirmed) and the sentences listed anywhere after it."""
    doc = Retrieved(id="terms.md#0", text=TEXT, source="terms.md", score=1.0, tool="vector", doc_id="terms.md",
                    chunk_index=0)
    text = engine.generate(question, [doc], [Grade("ambiguous", 0.5, "test")], "partial").text
    lines = text.splitlines()
    block = [line[2:].rsplit(" [", 1)[0] for line in lines[1:next(
        k for k in range(1, len(lines)) if not lines[k].startswith("- "))]]
    rest = [s for s in SENTENCES if s not in block and s in text]
    return block, rest, text


def test_a_two_part_question_lists_one_more(engine):
    block, rest, text = _closest(engine, "저희 여행사가 예약 잡아 주면 몇 퍼센트 줘요? 언제쯤 들어와요?")
    # selection's sentences in its order, less those listed under a key term they hold
    assert block == [s for s in SENTENCES if s not in rest][:CLOSEST_QUOTES + 1], text


def test_a_one_part_question_lists_the_fixed_count(engine):
    block, rest, text = _closest(engine, "저희 여행사가 예약 잡아 주면 몇 퍼센트 줘요?")
    assert block == [s for s in SENTENCES if s not in rest][:CLOSEST_QUOTES], text
