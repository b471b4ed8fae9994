"""Issue 8, fourteenth session: a comparison in time asks for dates ("Which opened earlier, A or B?"), a partial
answer shows each name in a sentence that states the asked value, and a "how many" question that fixes one row of a
table reads that row's count instead of counting rows (always 1). Documents and tables written for this test."""
from __future__ import annotations

from datetime import date

import pytest

from rag.config import Settings
from rag.engines.offline import OfflineEngine
from rag.engines.offline.answertype import asked_type
from rag.tools.sql import SqlTool, detect_function
from rag.types import Grade, Retrieved


@pytest.fixture
def settings(data_dir):
    from tests.support.kb import make_settings

    return make_settings(data_dir)


# ---- a comparison in time asks for a date (ko / en / zh language patterns) -----------------------------------------
@pytest.mark.parametrize("question", [
    "Which opened earlier, the Dongmun Branch or the Hanbit Children's Library?",
    "Who joined later, Mina Seo or Jun Park?",
    "동문분관과 한빛어린이도서관 중 어디가 먼저 문을 열었어?",
    "두 배 중에 어느 배가 더 일찍 취항했어?",
    "东门分馆和韩光儿童图书馆哪个更早开馆？",
])
def test_a_comparison_in_time_asks_for_a_date(question):
    assert asked_type(question).label == "date or time"


@pytest.mark.parametrize("question", [
    "먼저 무엇을 해야 하나요?",  # a step asked, not a date
    "Which step comes first?",
    "Which branch is larger, Dongmun or Seorim?",
])
def test_other_questions_with_order_words_ask_for_no_date(question):
    assert asked_type(question).label != "date or time"


LIBRARIES_KO = ("# 분관 안내\n\n"
                "동문분관과 한빛어린이도서관은 문을 활짝 열어 두어 이용자 만족도가 높다.\n\n"
                "## 개관 연도\n\n"
                "- 동문분관: 2014년 개관한 분관.\n"
                "- 한빛어린이도서관: 2019년 개관한 어린이 전문 도서관.\n")


def test_a_partial_answer_shows_each_compared_name_with_its_date():
    # both names (and the question's 문) are in the survey sentence, which states no date; each name's own line
    # states the asked year
    engine = OfflineEngine(Settings.from_env(), clock=lambda: date(2026, 12, 1))
    doc = Retrieved(id="libraries.md#0", text=LIBRARIES_KO, source="libraries.md", score=1.0, tool="vector",
                    doc_id="libraries.md", chunk_index=0)
    answer = engine.generate("동문분관과 한빛어린이도서관 중 어디가 먼저 문을 열었어?", [doc],
                             [Grade("ambiguous", 0.5, "test")], "partial")
    found = answer.text.split("\n")
    named = [line for line in found if line.startswith("- ") and "('" in line]
    assert any("2014년" in line and "동문분관" in line for line in named), answer.text
    assert any("2019년" in line and "한빛어린이도서관" in line for line in named), answer.text
    assert not any("만족도" in line for line in named), answer.text


# ---- a count that one row of a table holds ---------------------------------------------------------------------------
CREWS = ("crew (크루),members (인원),vehicles (차량),founded (설립연도)\n"
         "North Crew,12,3,2015\nSouth Crew,9,2,2018\nHarbour Crew,15,4,2020\n")
SHIFTS = "region (지역),shift (근무조),hours (시간)\nSeoul,day,8\nSeoul,night,10\nBusan,day,8\n"


@pytest.fixture()
def tool(tmp_path) -> SqlTool:
    settings = Settings.from_env(data_dir_override=tmp_path / "data")
    tool = SqlTool(None, settings)  # no knowledge base: names are matched as text only
    assert tool.store.register("crews.csv", CREWS.encode()).status == "added"
    assert tool.store.register("shifts.csv", SHIFTS.encode()).status == "added"
    return tool


def _value(tool: SqlTool, question: str):
    plan = tool.plan(question)
    result = tool.execute(question, plan.sql, "offline", plan.reason)
    return plan, result.rows


@pytest.mark.parametrize("question", ["How many people are on the Harbour Crew?", "Harbour Crew에는 사람이 몇 명 있어?"])
def test_how_many_people_in_one_row_reads_its_count_column(tool, question):
    plan, rows = _value(tool, question)
    assert "members (인원)" in plan.sql and "COUNT(*)" not in plan.sql, plan.sql
    assert rows[0][-1] == 15, rows
    assert "fixes one row" in plan.reason


def test_counting_rows_that_a_shared_value_selects_stays_a_row_count(tool):
    # "Seoul" is a value of two rows: counting them means something
    plan, rows = _value(tool, "How many shifts does Seoul have?")
    assert "COUNT(*)" in plan.sql and rows[0][-1] == 2, (plan.sql, rows)


def test_a_count_of_people_needs_a_column_that_names_people(tool):
    # two numeric columns and the question counts no people: which one is meant is not clear, so rows are counted
    plan, _rows = _value(tool, "How many does the Harbour Crew have?")
    assert "COUNT(*)" in plan.sql, plan.sql


@pytest.mark.parametrize("question", ["Summed over every crew, what is the headcount?", "Vehicles summed over all crews?",
                                      "What do the crews' vehicles add up to?"])
def test_an_inflected_sum_word_asks_for_a_sum(question):
    # the statistic word is what sends an aggregate question to the tables (rag.engines.offline.kinds)
    assert detect_function(question) == "sum"
