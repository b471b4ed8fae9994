"""Issue 8, multi-hop: a chain question that names no entity but describes it ("the monitoring system that sent no
alarm in the February freezer incident — which team built it, and who leads that team?"). The graph search finds the
described entity in the sentence that matches the description best (across languages: a Chinese question, a Korean
incident report, English facts), follows the chain from it, and shows that sentence as the first piece of evidence.

Documents written for this test (a made-up food warehouse); real knowledge base, real graph store, real extractor,
real embedder, no mocks."""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.tools.graph import GraphTool, predicate_order
from rag.variants import run_question

INCIDENT_KO = ("# 사고 보고서: 냉동창고 온도 상승 (2026년 2월)\n\n"
               "## 요약\n\n"
               "2026년 2월 3일 밤 2번 냉동실 온도가 영하 18도에서 영상 2도까지 올랐다.\n"
               "2026년 2월 냉동실 온도가 오르는 동안 온도 감시 시스템 FreezeEye는 아무 경보도 보내지 않았다.\n"
               "아침 근무자가 문을 열고 나서야 이상을 알았다.\n\n"
               "## 피해\n\n"
               "냉동 만두 1,200상자를 폐기했다.\n")
SYSTEMS_EN = ("# Systems\n\n"
              "## FreezeEye\n\n"
              "FreezeEye was built by the Cold Chain Team in 2024. It reads the probes in every freezer room.\n\n"
              "## Dockmate\n\n"
              "Dockmate was built by the Yard Team in 2023. It books the loading docks.\n\n"
              "## Teams\n\n"
              "- Jiho Seo leads the Cold Chain Team.\n"
              "- Ana Lee leads the Yard Team.\n")
QUESTIONS = [
    "2026年2月冷冻库升温时没有报警的那个温度监控系统是哪个团队开发的？团队负责人是谁？",
    "Who leads the team that built the temperature monitoring system that sent no alarm in the February 2026 "
    "freezer incident?",
]


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("described-chains"), {"incident.md": INCIDENT_KO, "systems.md": SYSTEMS_EN})
    yield kb
    kb.close()


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_description_stands_where_the_language_puts_it(question):
    # Chinese puts the described thing first, English last: the relation nearest to it is the first hop
    assert predicate_order(question, [], described=True) == ["developed_by", "leads"]
    assert predicate_order(question, []) == []  # nothing named, nothing described: no chain


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_chain_starts_at_the_described_entity(kb, question):
    docs = GraphTool(kb, kb.settings).run(question, 4)
    assert docs[0].metadata.get("described_entity") == "FreezeEye", [d.text for d in docs]
    assert "FreezeEye" in docs[0].text and docs[0].metadata["chunk_id"].split(":")[0] == docs[0].doc_id
    triples = [d.metadata.get("triple") for d in docs[1:3]]
    assert triples == [["FreezeEye", "developed_by", "Cold Chain Team"], ["Jiho Seo", "leads", "Cold Chain Team"]], \
        triples


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_agent_names_the_lead_and_shows_the_description(kb, question):
    run = run_question(question, kb, OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1)), kb.settings)
    assert run.error is None, run.error
    head = run.answer.splitlines()[0]
    assert "Jiho Seo" in head and "Ana Lee" not in run.answer, run.answer
    assert "FreezeEye" in head, run.answer
    # the sentence the chain started from is the first piece of evidence
    evidence = [line for line in run.answer.splitlines() if line.startswith("- ")]
    assert "경보" in evidence[0], run.answer
    assert run.route == "graph" and not run.partial and not run.abstained, (run.route, run.answer)


def test_a_named_entity_still_starts_the_chain(kb):
    # the question names FreezeEye: no description search, no described sentence
    docs = GraphTool(kb, kb.settings).run("Who leads the team that built FreezeEye?", 4)
    assert not any(d.metadata.get("described_entity") for d in docs)
    assert docs[0].metadata["triple"] == ["FreezeEye", "developed_by", "Cold Chain Team"]


def test_a_long_time_is_no_head_of_a_unit():
    # 队长 (a team's head) inside 团队长期 ("a team … for a long time"): the question asks who is in charge only
    from rag.tools.graph import asked_predicates

    assert asked_predicates("哪个团队长期负责FreezeEye？") == {"owns"}
    assert asked_predicates("FreezeEye是哪个组开发的？组长是谁？") == {"developed_by", "leads"}


# ---- the author of a document, then her team's head (issue 8: "Who drew up the checklist …, and who heads the team
# she's on?" over a Korean procedure that names the author and an English directory that relates her) ------------
PROCEDURE_KO = ("# 냉동실 야간 점검 절차\n\n"
                "## 순서\n\n"
                "1. 두 시간마다 냉동실 온도계를 읽는다.\n"
                "2. 문 고무 패킹에 성에가 끼었는지 본다.\n\n"
                "## 점검표\n\n"
                "냉동실 야간 점검표는 품질팀 윤서진 연구원이 만들었고, 야간 근무자가 점검할 때마다 채운다.\n")
DIRECTORY_EN = ("# Who's who\n\n"
                "## Night Shift Team\n\n"
                "Jiwon Choi leads the Night Shift Team, which checks the freezer rooms and fills in their logs.\n\n"
                "## Quality Team\n\n"
                "Minsu Park leads the Quality Team.\n"
                "Seojin Yoon (尹瑞真, 윤서진), a food-safety analyst, belongs to the Quality Team.\n")
# English pages that match the question's words better than the Korean procedure does (the search in the question's
# language returns them first; none says who drew the checklist up)
FILLERS_EN = {
    "night_shift.md": "# Night shift\n\nThe night shift checks the freezer rooms every two hours.\n"
                      "Night staff fill in the freezer log at the end of every round.\n",
    "freezers.md": "# Freezer rooms\n\nThe freezer rooms are kept at minus 18 degrees.\n"
                   "A freezer room door must stay shut between checks.\n",
    "logs.md": "# Logs and checklists\n\nEvery checklist is kept for a year after it is filled in.\n"
               "Checklists are filled in on paper and scanned the next morning.\n",
    "handover.md": "# Handover\n\nThe night shift hands over to the morning team at 07:00.\n"
                   "Anything odd in the freezer rooms is written in the handover book.\n",
}
AUTHOR_QUESTION = ("Who drew up the checklist the night shift fills in for the freezer rooms, and who heads the team "
                   "she's on?")


@pytest.fixture(scope="module")
def author_kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("author-chain"),
                  {"procedure.md": PROCEDURE_KO, "directory.md": DIRECTORY_EN, **FILLERS_EN})
    yield kb
    kb.close()


def test_the_team_she_is_on_asks_the_team_she_belongs_to():
    from rag.engines.offline.relations import asked_relations
    from rag.tools.graph import asked_predicates

    for question in (AUTHOR_QUESTION, "过敏原标签检查表是谁做的？她所在团队的负责人又是谁？",
                     "Who wrote the guide, and who leads her team?"):
        assert asked_predicates(question) == {"belongs_to", "leads"}, question
        assert asked_relations(question) >= {"belongs_to", "leads"}, question
    assert asked_predicates("Who leads the team that heads the project?") == {"leads"}
    # "other team", "this team", "steam he": no team someone is on
    for question in ("Who leads this team?", "Which city is the other team based in?", "Is the steam he saw safe?"):
        assert "belongs_to" not in asked_relations(question) | asked_predicates(question), question
    assert asked_predicates("这家公司总部所在地是哪里？") == {"located_in"}


def test_the_description_is_searched_in_every_language(author_kb):
    # the Korean sentence that says who drew the checklist up is among the described sentences, with every name it
    # holds ("품질팀 윤서진 연구원", then "윤서진", the alias the directory gives)
    _, _, described = GraphTool(author_kb, author_kb.settings).seeds(AUTHOR_QUESTION, {})
    assert "윤서진" in described, list(described)
    assert any("점검표" in sentence for _, sentence, _ in described["윤서진"]), described["윤서진"]


def test_the_author_found_in_another_language_starts_the_chain(author_kb):
    # the description ("drew up the checklist …") is answered by the Korean procedure; the English directory relates
    # her (by the alias its parentheses give) to her team and the team to its head; the night shift's sentences,
    # which match the question's other words, start no chain: a team is not who drew anything up
    run = run_question(AUTHOR_QUESTION, author_kb, OfflineEngine(author_kb.settings, clock=lambda: date(2026, 12, 1)),
                       author_kb.settings)
    assert run.error is None, run.error
    head = run.answer.splitlines()[0]
    assert "Minsu Park" in head and ("Seojin Yoon" in head or "윤서진" in head), run.answer
    assert "Jiwon Choi" not in head, run.answer
    assert run.route == "graph" and not run.partial and not run.abstained, (run.route, run.answer)
