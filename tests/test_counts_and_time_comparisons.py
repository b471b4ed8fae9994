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
    "회의 중에 먼저 무엇을 해야 하나요?",  # "중" of "during", not of "which of A and B"
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


def test_a_partial_answer_shows_each_compared_name_with_its_date(settings):
    # both names (and the question's 문) are in the survey sentence, which states no date; each name's own line
    # states the asked year
    engine = OfflineEngine(settings, clock=lambda: date(2026, 12, 1))
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


# ---- a comparison that asks about nothing but the names -------------------------------------------------------------
TEAMS_KO = ("# 팀과 제품\n\n"
            "Search Team은 Lumen을 맡는다. Lumen의 색인, 검색 순위, 품질 평가가 모두 이 팀의 일이다.\n\n"
            "Care Team은 Sori를 맡는다. Sori의 대화 흐름과 상담원 연결을 이 팀이 만든다. "
            "Sori는 Lumen의 검색 결과를 받아 답한다.\n")
PRODUCTS_KO = ("# 회사 소개\n\n"
               "## 제품\n\n"
               "- Lumen: 사내 문서를 찾아 주는 검색 서비스\n"
               "- Sori: 고객 상담에 쓰이는 챗봇\n")


@pytest.mark.parametrize("name, text, expected", [
    ("lumen", "- Lumen: 사내 문서를 찾아 주는 검색 서비스", True),
    ("lumen", "Lumen is the enterprise search service of the company.", True),
    ("sori", "Sori는 Lumen의 결과를 받아 답한다.", True),
    ("sori", "Sori（索里）是一个聊天机器人。", True),
    ("lumen", "Lumen의 색인과 순위 평가가 모두 이 팀의 일이다.", False),  # a genitive: the sentence is about the work
    ("sori", "Care Team은 Sori를 맡는다.", False),  # an object
    ("lumen", "Lumens are a unit of light.", False),
])
def test_a_sentence_that_says_what_a_name_is(name, text, expected):
    from rag.engines.offline.candidates import defines

    assert defines(name, text) is expected


@pytest.mark.parametrize("question", ["Lumen과 Sori의 차이점은 무엇인가요?", "Lumen과 Sori는 어떻게 다른가요?"])
def test_a_comparison_of_two_names_quotes_what_each_one_is(settings, question):
    engine = OfflineEngine(settings, clock=lambda: date(2026, 12, 1))
    docs = [Retrieved(id=f"{source}#0", text=text, source=source, score=1.0, tool="vector", doc_id=source,
                      chunk_index=0) for source, text in (("teams.md", TEAMS_KO), ("products.md", PRODUCTS_KO))]
    # the team document comes first and says more about each name; the product list says what each one is
    answer = engine.generate(question, docs, [Grade("correct", 0.8, "test")] * 2, "answer")
    assert "검색 서비스" in answer.text and "챗봇" in answer.text, answer.text


def test_a_partial_answer_to_a_comparison_of_names_shows_what_each_one_is(settings):
    engine = OfflineEngine(settings, clock=lambda: date(2026, 12, 1))
    docs = [Retrieved(id=f"{source}#0", text=text, source=source, score=1.0, tool="vector", doc_id=source,
                      chunk_index=0) for source, text in (("teams.md", TEAMS_KO), ("products.md", PRODUCTS_KO))]
    answer = engine.generate("What is the difference between Lumen and Sori?", docs,
                             [Grade("ambiguous", 0.5, "test")] * 2, "partial")
    named = [line for line in answer.text.splitlines() if line.startswith("- ") and "('" in line]
    # "Sori는 Lumen의 검색 결과를 받아 답한다" names both and ranks first for each; it says what neither is
    assert any("검색 서비스" in line for line in named) and any("챗봇" in line for line in named), answer.text


# ---- a name asked by its initials, or spelled out where the graph has the initials -------------------------------
PAPERS = ("# Ranking methods\n\n"
          "ZRF was proposed by Mira Lind in 2011. Mira Lind is a professor at the University of Tartu.\n\n"
          "The Quiet Window Method was proposed by Ansel Berg. Ansel Berg is a researcher at Lakeside Institute.\n")


@pytest.fixture(scope="module")
def papers_kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("acronyms"), {"papers.md": PAPERS})
    yield kb
    kb.close()


def test_initials_of_a_spelled_out_name():
    from rag.tools.graph import initials

    assert initials("Reciprocal Rank Fusion") == "RRF"


def test_a_graph_name_is_found_by_its_spelled_out_form_and_by_its_initials(papers_kb):
    tool = papers_kb.tools()["graph"]
    assert tool.acronym_matches("Zeta Rank Fusion을 제안한 사람은 어느 대학 소속이에요?") == {"ZRF": "Zeta Rank Fusion"}
    assert "Quiet Window Method" in tool.acronym_matches("Who proposed QWM?")
    assert tool.acronym_matches("Who proposed the Zeta Ranking?") == {}  # not the initials of ZRF


@pytest.mark.parametrize("question", ["Zeta Rank Fusion을 처음 제안한 사람은 어느 대학 소속이에요?",
                                      "Which university is the person who proposed Zeta Rank Fusion at?"])
def test_the_agent_follows_a_chain_from_a_spelled_out_name(papers_kb, question):
    from rag.variants import run_question

    run = run_question(question, papers_kb, OfflineEngine(papers_kb.settings, clock=lambda: date(2026, 12, 1)),
                       papers_kb.settings)
    assert run.error is None, run.error
    assert "University of Tartu" in run.answer.splitlines()[0], run.answer


# ---- a cause asked the way people ask it, from the section of the event the question names -------------------------
@pytest.mark.parametrize("question", [
    "Everyone said the ferry delay was down to the fog. Was it, or what actually went wrong?",
    "The outage was first blamed on the storm. What was really behind it?",
    "How come the alarm never went off?",
    "지난달 정전, 진짜로는 뭐가 문제였던 거죠?",
    "그 사고는 어쩌다 일어난 거예요?",
    "那次停电到底是怎么回事？",
    "警报怎么一个都没响？",
])
def test_the_ways_people_ask_for_a_cause(question):
    from rag.engines.offline.semantics import question_intents

    assert asked_type(question).cause and "cause" in question_intents(question)


@pytest.mark.parametrize("question", ["How do I get down to the harbour?", "What happened after the meeting?",
                                      "문제가 생기면 어떻게 하나요?"])
def test_questions_that_ask_no_cause(question):
    assert not asked_type(question).cause


def test_how_come_in_chinese_is_a_cause_not_a_procedure():
    from rag.engines.offline.semantics import question_intents

    assert question_intents("那次热水事故，Heatwell 怎么一个警报都没响？") == {"cause"}
    assert question_intents("退货怎么办理？") == {"procedure"}


SUMMARY_EN = ("# Incident report: cold water at the Riverside hotel, 9 April 2026\n\n"
              "## Summary\n\n"
              "On 9 April guests on floors 3 to 6 of the Riverside hotel had only cold water for four hours.\n")
CAUSE_EN = ("## Root cause\n\n"
            "The boiler was never at fault: its log shows it ran normally all night. "
            "The loop for floors 3 to 6 had been turned down on purpose. "
            "The building system believed those floors were empty. "
            "It took its occupancy from the linen system, which had skipped a tentative group booking. "
            "No alarm went off because the building system mutes alarms for loops it turns down itself.\n")
OTHER_EN = ("## Root cause\n\n"
            "Because the boiler settings of another hotel had been copied, guests got cold showers on each peak "
            "night.\n")


def test_a_cause_comes_from_the_section_of_the_event_the_question_names(settings):
    # the other hotel's cause section states a cause with "because" and the question's words (boiler, cold showers);
    # the question names Riverside and April, which only the incident's first chunk names
    engine = OfflineEngine(settings, clock=lambda: date(2026, 12, 1))
    docs = [Retrieved(id=f"{doc_id}:{k}", text=text, source=f"{doc_id}.md", score=1.0, tool="vector", doc_id=doc_id,
                      chunk_index=k)
            for doc_id, k, text in (("overbooking", 1, OTHER_EN), ("riverside", 0, SUMMARY_EN),
                                    ("riverside", 1, CAUSE_EN))]
    answer = engine.generate("Everyone says the cold showers at Riverside in April were down to the boiler. "
                             "Was it, or what actually went wrong?", docs,
                             [Grade("correct", 0.8, "test")] * 3, "answer")
    assert "another hotel" not in answer.text, answer.text
    # the whole cause section is read: the booking that was skipped is its fourth sentence
    assert "tentative group booking" in answer.text, answer.text


# ---- a byline is not an answer ---------------------------------------------------------------------------------------
EXCHANGE_ZH = ("# 交换项目通知\n\n"
               "*Institute for Materials, Seon University. Updated November 2026.*\n\n"
               "报名材料包括推荐信一封和研究计划一份。\n"
               "请将全部材料发送给国际交流处。\n")


def test_a_byline_is_not_quoted_as_the_answer(settings):
    from rag.engines.offline.layout import _bylines

    assert _bylines(EXCHANGE_ZH) == ["Institute for Materials, Seon University. Updated November 2026."]
    engine = OfflineEngine(settings, clock=lambda: date(2026, 12, 1))
    doc = Retrieved(id="exchange.md#0", text=EXCHANGE_ZH, source="exchange.md", score=1.0, tool="vector",
                    doc_id="exchange.md", chunk_index=0)
    answer = engine.generate("报名交换项目要交什么材料？什么时候更新的？", [doc], [Grade("correct", 0.8, "test")],
                             "answer")
    assert "推荐信" in answer.text.splitlines()[0], answer.text
