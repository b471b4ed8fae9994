"""Issue 8: a question that asks several things ("苏州首店哪天开业？几点关门？") — most questions of the clean held-out
corpora do. The conclusion answers its first part (the whole question's value pattern would pick whichever kind its
list tries first: the time of day here), and a part whose own words match no sentence ("几点关门" names no store)
gets the sentence the whole question ranks best among those stating the value it asks for. A partial answer offers
one more candidate per part. Documents written for this test (a made-up bakery's Suzhou store)."""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.candidates import _leading_asked
from rag.types import Grade, Retrieved

NOTICE = ("# 麦阁烘焙苏州首店开业公告\n\n麦阁烘焙苏州首店将于 2026 年 5 月 16 日在金鸡湖畔正式开业。\n"
          "开业当天前 100 位顾客可获赠面包一份。\n营业时间：每天 08:00 至 21:30，节假日照常营业。\n")
AGREEMENT = ("# 特许经营协议要点\n\n2025 年 10 月 16 日，禾麦与麦阁在苏州签署特许经营合作协议。\n"
             "加盟费：每开设一家门店，一次性支付人民币 18 万元。\n")


@pytest.fixture
def engine(data_dir):
    from tests.support.kb import make_settings

    return OfflineEngine(make_settings(data_dir), clock=lambda: date(2026, 12, 1))


def _docs() -> list[Retrieved]:
    return [Retrieved(id="agreement#0", text=AGREEMENT, source="agreement.md", score=1.0, tool="vector",
                      doc_id="agreement", chunk_index=0),
            Retrieved(id="notice#0", text=NOTICE, source="notice.md", score=1.0, tool="vector", doc_id="notice",
                      chunk_index=0)]


def test_the_first_part_leads():
    assert _leading_asked("麦阁苏州第一家店是哪天开的？晚上几点关门？").kinds >= {"date"}
    assert _leading_asked("晚上几点关门？").label == "time of day"  # one part: the question's own


@pytest.mark.parametrize("question", ["麦阁苏州第一家店是哪天开的？晚上几点关门？", "麦阁苏州首店哪天开业？几点关门？"])
def test_each_part_is_answered_and_the_first_concludes(engine, question):
    answer = engine.generate(question, _docs(), [Grade("correct", 0.8, "test"), Grade("correct", 0.7, "test")],
                             "answer")
    conclusion = answer.text.splitlines()[0]
    assert "5 月 16 日" in conclusion, answer.text
    assert "21:30" in answer.text, answer.text
    assert "part 2 asks for" in answer.reason, answer.reason
