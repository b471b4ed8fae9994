"""Issue 8: Korean ↔ Chinese key terms meet through the Sino-Korean reading of Chinese characters (rag.sinokorean).

The words here are not in the glossary (rag/engines/offline/vocabulary.py): they are matched by the reading table
alone. Documents are written for this test.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.coverage import SINO_KOREAN, coverage_of, prepared_text
from rag.engines.offline.vocabulary import GLOSSARY
from rag.sinokorean import canonical, han_readings, han_term_key, reading
from rag.tools.vector import VectorTool

KO_DOC = ("# 산호동물병원 감염 관리 지침\n\n"
          "파보바이러스 확진 후 격리병동은 48시간 동안 새 입원 환자를 받지 않는다.\n"
          "수술 예약을 취소하면 예약금은 돌려주지 않는다.\n")
ZH_DOC = ("# 珊瑚动物医院 合作协议\n\n"
          "双方共建的联合实验室协议有效期至 2029 年 9 月。\n"
          "隔离病房每天消毒两次。\n")


def test_readings_follow_the_table_and_the_initial_sound_rule():
    assert reading("预约") == "예약"
    assert reading("手术") == "수술"  # Simplified 术 is also another character (출): read as 手術
    assert reading("隔离") == canonical("격리") == "격이"  # one canonical form for 리 inside and 이 at a word start
    assert reading("旅行") == canonical("여행")
    assert han_term_key("实验") == "실험"
    assert han_term_key("데스크") == "" and han_term_key("ok") == ""
    assert han_readings("联合实验室, 2029 年") == "연합실험실 연"


def test_a_chinese_term_is_found_in_a_korean_text_and_the_other_way_round():
    glossary = {form for row in GLOSSARY for form in row}
    for term in ("隔离", "确诊", "手术", "预约"):
        assert term not in glossary  # found by the reading, not by a word list
        credit, how = prepared_text(KO_DOC).match(term)
        assert credit == 1.0 and how.startswith(SINO_KOREAN), (term, how)
    for term in ("실험실", "유효", "소독"):
        credit, how = prepared_text(ZH_DOC).match(term)
        assert credit == 1.0 and how.startswith(SINO_KOREAN), (term, how)
    # a longer Korean compound with one part in other characters (병동 / 病房) is a partial match
    assert prepared_text(ZH_DOC).match("격리병동") == (0.5, f"{SINO_KOREAN} '격이병동'")


def test_words_korean_does_not_share_with_chinese_do_not_match():
    ko, zh = prepared_text(KO_DOC), prepared_text(ZH_DOC)
    assert ko.match("医院")[0] == 0.0  # reads 의원; the Korean document says 병원
    assert ko.match("退款")[0] == 0.0  # reads 퇴관; Korean says 환불 / 돌려주다
    assert zh.match("데스크")[0] == 0.0 and zh.match("얼마")[0] == 0.0  # a loan word and a native word
    cov = coverage_of(["격리", "병원"], ZH_DOC)
    assert cov.credit["격리"] == 1.0 and cov.credit.get("병원", 0.0) == 0.0


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("sinokorean"), {"infection_ko.md": KO_DOC, "agreement_zh.md": ZH_DOC})
    yield kb
    kb.close()


def test_the_grade_of_a_document_in_the_other_language_records_the_reading(kb):
    engine = OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1))
    question = "确诊以后隔离病房多少小时不接收新病人？"
    docs = VectorTool(kb, kb.settings).run(question, 2, exclude_language="zh")
    ko = next(d for d in docs if d.source == "infection_ko.md")
    grade = engine.grade(question, ko)
    assert "via Sino-Korean reading '격이'" in grade.reason and "via Sino-Korean reading '확진'" in grade.reason
    # the raw similarity of two scripts is still weighed as before: only the evidence changed
    assert "checkable in this text's language" in grade.reason
