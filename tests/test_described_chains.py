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
