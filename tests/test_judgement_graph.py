"""Issue 8: graph answers follow the chain the question implies, and extraction does not invent relations.

A document written for this test holds a 3-hop chain (the drone uses a module, the module was built by a team, the
team is led by a person) and a sentence where two names merely co-occur. The README's first example runs on the
three sample documents it needs.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.extract import extract
from rag.variants import run_question
from tests.support.kb import SAMPLE_DOCS

DRONE = (
    "# Lumen drone\n\n"
    "The Lumen drone uses the Vega navigation module.\n"
    "The Vega navigation module was built by the Orion Team.\n"
    "The Orion Team is led by Hana Yoon.\n"
    "Tom Becker and the Atlas Foundation were both mentioned in the spring newsletter.\n")
CO_OCCURRENCE = "Tom Becker and the Atlas Foundation were both mentioned in the spring newsletter."


@pytest.fixture(scope="module")
def drone_kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("judgement-graph"), {"drone_en.md": DRONE})  # default graph_hops (2)
    yield kb
    kb.close()


def test_three_hop_chain_is_followed_to_the_person(drone_kb):
    engine = OfflineEngine(drone_kb.settings, clock=lambda: date(2026, 12, 1))
    run = run_question("Who leads the team that built the navigation module used in the Lumen drone?",
                       drone_kb, engine, drone_kb.settings)
    assert run.error is None and run.route == "graph" and not run.abstained
    conclusion = run.answer.splitlines()[0]
    assert conclusion.split(":", 1)[1].strip().startswith("Hana Yoon"), run.answer  # the entity the chain reaches
    for fact in ("uses", "developed_by", "leads"):
        assert fact in conclusion
    for evidence in ("uses the Vega navigation module", "was built by the Orion Team", "is led by Hana Yoon"):
        assert evidence in run.answer  # each hop's evidence sentence
    generate = next(s for s in run.steps if s.node == "generate")
    assert "hop 1" in generate.reason and "hop 2" in generate.reason and "hop 3" in generate.reason
    assert generate.reason.index("uses") < generate.reason.index("developed_by") < generate.reason.index("leads")
    retrieved = next(s for s in run.steps if s.node == "retrieve_graph")
    assert {d.metadata.get("hop") for d in retrieved.documents} >= {1, 2}


def test_co_occurring_names_are_not_a_relation(drone_kb):
    found = extract(CO_OCCURRENCE, "d", "d:0", "news.md")
    assert {e.name for e in found.entities} >= {"Tom Becker", "Atlas Foundation"}
    assert found.relations == []
    facts = drone_kb.graph.expand(["Tom Becker"], hops=2, limit=20)
    assert facts == []
    # a stated association still gives one
    stated = extract("Tom Becker partnered with the Atlas Foundation on the survey.", "d", "d:0", "news.md")
    assert [(r.source, r.predicate, r.target) for r in stated.relations] == [
        ("Tom Becker", "related_to", "Atlas Foundation")]


@pytest.fixture(scope="module")
def sample_subset_kb(tmp_path_factory):
    from tests.support.kb import build_kb

    names = ("atlas_search_service.md", "people_directory.md", "teams_and_products.md")
    kb = build_kb(tmp_path_factory.mktemp("judgement-readme"),
                  {n: (SAMPLE_DOCS / n).read_text(encoding="utf-8") for n in names})
    yield kb
    kb.close()


def test_readme_first_example_names_the_team_lead(sample_subset_kb):
    """'Atlas를 만든 팀의 팀장은 누구야?' used to be answered confidently wrong (a sentence about another team)."""
    kb = sample_subset_kb
    engine = OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1))
    run = run_question("Atlas를 만든 팀의 팀장은 누구야?", kb, engine, kb.settings)
    assert run.error is None and run.route == "graph" and not run.abstained
    assert "Seoyeon Kim" in run.answer.splitlines()[0], run.answer
    assert "Search Platform Team" in run.answer
    assert "대신 제품 팀이 쓰는 모델을 만든다" not in run.answer


@pytest.mark.parametrize("question, answer, hops", [
    ("Lumen 드론에 쓰인 내비게이션 모듈을 만든 팀의 팀장은 누구인가요?", "Hana Yoon", 3),
    ("Lumen 无人机使用的导航模块是哪个团队开发的？", "Orion Team", 2),
])
def test_the_chain_is_followed_from_a_korean_or_chinese_question(drone_kb, question, answer, hops):
    engine = OfflineEngine(drone_kb.settings, clock=lambda: date(2026, 12, 1))
    run = run_question(question, drone_kb, engine, drone_kb.settings)
    assert run.error is None and run.route == "graph" and not run.abstained
    assert run.answer.splitlines()[0].split(":", 1)[1].strip().startswith(answer), run.answer
    generate = next(s for s in run.steps if s.node == "generate")
    assert f"hop {hops}:" in generate.reason and f"hop {hops + 1}:" not in generate.reason
