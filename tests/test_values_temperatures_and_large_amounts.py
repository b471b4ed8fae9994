"""Temperatures, nights of a stay, volumes of liquid, and amounts of money written with a large-number word apart from the currency (twenty-seventh
session, issue 8; sentences written for this test).

- A temperature ("134 °C", "4℃", "60도", "60 度", "70 degrees") is a quantity in its own unit class: "How hot does the
  flushing water need to be?", "몇 도로", "多少度", "온도는 얼마" ask for it, and a bare "how much" is not answered by
  it (it was a bare number before, and any number answered "how hot"). 도 / 度 count only after digits and before
  the end of the word or a particle: "一度" is "once", "3도시" three cities, "312도스" doses, "100度电" kilowatt-hours.
- Nights of a stay ("14 nights", "2박", "3 晚") are a duration ("how many nights", "몇 박까지", "几晚", "how long
  can it board"); 박 / 晚 only after digits and not inside a word ("3박스" are boxes, "晚上" is the evening). Litres
  and millilitres ("450mL", "2,000리터", "5 升") are a volume of liquid.
- "46억 원", "3천 원", "780 万韩元", "3 亿元", "30 million won" are money (they were bare numbers, or "万韩元" without
  its number), so "연구비는 얼마였어?" finds them.
"""
from __future__ import annotations

import pytest

from rag.engines.offline.answertype import STRONG, asked_type, fit
from rag.engines.offline.values import stated_values


def _values(sentence: str) -> list[tuple[str, str, str]]:
    return [(v.kind, v.unit, v.text) for v in stated_values(sentence)]


@pytest.mark.parametrize("sentence, value", [
    ("All instruments are sterilised at 134 °C for at least 4 minutes.", ("quantity", "temperature", "134 °C")),
    ("살균한 주스는 바로 4℃ 이하로 식힌다.", ("quantity", "temperature", "4°C")),
    ("배관의 물은 60도 이상으로 유지한다.", ("quantity", "temperature", "60도")),
    ("热水管道水温保持在 60 度以上。", ("quantity", "temperature", "60 度")),
    ("The loop is heated to 70 degrees once a week.", ("quantity", "temperature", "70 degrees")),
    ("2025년 연구비 총액은 약 46억 원이었다.", ("money", "money", "46억 원")),
    ("연회비는 3천 원이다.", ("money", "money", "3천 원")),
    ("分院报废了全部疫苗，损失约 780 万韩元。", ("money", "money", "780 万韩元")),
    ("双方共投资 3 亿元。", ("money", "money", "3 亿元")),
    ("Each group receives a base allocation of 30 million won per year.", ("money", "money", "30 million won")),
    ("Small pets board for 15,000 KRW per night, for up to 14 nights.", ("quantity", "night", "14 nights")),
    ("제주 연수는 2박 3일 일정이다.", ("quantity", "night", "2박")),
    ("客人最多可连住 3 晚。", ("quantity", "night", "3 晚")),
    ("한 번에 최대 450mL까지 채혈한다.", ("quantity", "liquid", "450mL")),
    ("물탱크 용량은 2,000리터다.", ("quantity", "liquid", "2,000리터")),
    ("每次最多 5 升。", ("quantity", "liquid", "5 升")),
])
def test_the_value_is_read_with_its_unit(sentence, value):
    assert value in _values(sentence)


@pytest.mark.parametrize("sentence", ["股价一度下跌。", "버스는 3도시를 돈다.", "屋顶光伏每年发电 100度电。", "백신 312도스를 폐기했다."])
def test_no_temperature_without_digits_or_in_another_word(sentence):
    assert not [v for v in stated_values(sentence) if v.unit == "temperature"]


@pytest.mark.parametrize("question", [
    "How hot does the flushing water need to be?", "냉장고는 몇 도로 맞춰야 해요?", "水温要保持在多少度？",
    "냉동고 온도는 얼마로 유지하나요?", "What is the storage temperature for vaccines?", "冷库温度是多少？",
])
def test_a_temperature_question_is_answered_by_a_temperature(question):
    asked = asked_type(question)
    assert "temperature" in asked.units, asked
    assert fit(asked, "The loop is heated to 70 degrees once a week.") == STRONG
    assert fit(asked, "The loop is flushed for 5 minutes once a week.") < STRONG


@pytest.mark.parametrize("question", ["폐기한 백신은 몇 도스였나요?", "몇 도시에 매장이 있어요?"])
def test_another_word_after_myeot_do_asks_no_temperature(question):
    assert "temperature" not in asked_type(question).units


def test_a_temperature_in_the_question_does_not_make_it_ask_for_one():
    asked = asked_type("How much citrus was stored in the cold room whose temperature climbed?")
    assert "temperature" not in asked.units
    assert fit(asked, "이 방에는 수출 등급 감귤 42톤이 보관돼 있었다.") == STRONG
    assert fit(asked, "3번 저온실의 온도가 올라 최고 13.8℃를 기록했다.") < STRONG  # a bare "how much"
    assert asked_type("Why did the temperature in the cold room rise?").units == frozenset()


@pytest.mark.parametrize("sentence", ["사과 3박스를 샀다.", "门店 晚上 10 点关门。"])
def test_no_nights_in_another_word(sentence):
    assert not [v for v in stated_values(sentence) if v.unit == "night"]


@pytest.mark.parametrize("question", ["How many nights can my hamster stay?", "최대 몇 박까지 맡길 수 있어요?", "最多可以住几晚？",
                                      "How long can my rabbit board?"])
def test_a_stay_is_answered_by_its_nights(question):
    assert fit(asked_type(question), "Small pets board for 15,000 KRW per night, for up to 14 nights.") == STRONG


def test_a_bare_amount_asked_is_not_answered_by_nights():
    asked = asked_type("시안 호텔 공항 픽업 차는 편도 얼마예요?")
    assert fit(asked, "You can stay at any hotel at half the public rate, up to six nights a year.") < STRONG
    assert fit(asked, "机场专车单程人民币 260 元。") == STRONG


def test_a_large_amount_answers_a_money_question():
    asked = asked_type("2025년 연구비는 모두 얼마였어요?")
    assert fit(asked, "2025년 연구비 총액은 약 46억 원이었다.") == STRONG


# ---- a review of the change (a helper probed ordinary sentences): readings it must not make, particles it must pass
@pytest.mark.parametrize("sentence", ["We trained 5 ML models last year.", "排名从第5升至第2。", "从版本2升级到版本3。",
                                      "支架倾斜30度角安装。"])
def test_no_litres_or_temperature_in_other_senses(sentence):
    assert not [v for v in stated_values(sentence) if v.unit in ("liquid", "temperature")]


@pytest.mark.parametrize("sentence, value", [
    ("60도의 물로 헹군다.", ("quantity", "temperature", "60도")),
    ("보관 온도는 4도와 8도 사이다.", ("quantity", "temperature", "4도")),
    ("한옥스테이는 1박당 8만 원이다.", ("quantity", "night", "1박")),
    ("2박으로 예약했다.", ("quantity", "night", "2박")),
])
def test_a_unit_before_a_particle_is_read(sentence, value):
    assert value in _values(sentence)


@pytest.mark.parametrize("question", ["몇 도로가 통제되었나요?", "一个月用了多少度电？"])
def test_roads_and_kilowatt_hours_ask_no_temperature(question):
    assert "temperature" not in asked_type(question).units
