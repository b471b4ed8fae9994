"""Issue 8 / principle 1: a unit conversion is general knowledge the offline engine computes ("섭씨 60도는 화씨로 몇
도야?" used to go to vector search and answer from the documents). Two units of one dimension (temperature, length,
weight) and one number → direct, computed with the formula shown; a question naming one unit only, or units of two
dimensions, stays a document question."""
from __future__ import annotations

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.arithmetic import unit_conversion


@pytest.fixture()
def engine(tmp_path):
    from tests.support.kb import make_settings

    return OfflineEngine(make_settings(tmp_path))


@pytest.mark.parametrize("question, lang, expected", [
    ("섭씨 60도는 화씨로 몇 도야?", "ko", "140 °F"),
    ("What is 100 °F in Celsius?", "en", "37.78 °C"),
    ("30摄氏度是多少华氏度？", "zh", "86 °F"),
    ("10 km is how many miles?", "en", "6.214 mi"),
    ("How many pounds is 5 kg?", "en", "11.02 lb"),
])
def test_a_unit_conversion_is_computed_directly(engine, question, lang, expected):
    decision = engine.classify(question, [])
    assert decision.strategy == "direct" and "unit conversion" in decision.reason, decision.reason
    answer = engine._generate_direct(question, lang)
    assert expected in answer.text and not answer.abstained, answer.text
    assert "unit conversion" in answer.reason


@pytest.mark.parametrize("question", [
    "냉장고는 섭씨 4도 이하로 유지해야 하나요?",  # one unit: a question about the documents
    "The 10 km route takes how long?",
    "5 kg 넘는 짐은 몇 km까지 배달돼요?",  # two units, two dimensions
    "5톤이 넘는 화물차 운임은 얼마예요?",
])
def test_other_questions_with_units_are_no_conversion(question):
    assert unit_conversion(question) is None
