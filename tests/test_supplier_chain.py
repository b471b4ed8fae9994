"""Issue 8: "which company makes the sensors, and where is it?" — a chain that starts from a thing the question only
describes (no name), through the company that makes it, to the city that company is in.

English names a company in full once and by its first word after that ("Kestrel Metrology (케스트럴계측) … . Kestrel is
a sensor maker based in Yeosu."): the short name is the same entity, so the city is a fact of the company. A question
that asks whose product a thing is ("어느 회사 제품", "哪家公司的产品", "who makes") asks the maker relation. The
documents are written for this test.
"""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.relations import asked_relations
from rag.graphstore.base import entity_key
from rag.tools.graph import asked_predicates
from rag.variants import run_question
from tests.support.relations import extracted_triples

SYSTEMS = (
    "# Systems at the Harbour Cinema\n\n"
    "## Lantern\n\n"
    "Lantern was built by the Projection Team in 2021. It schedules every test screening and keeps its results. "
    "The brightness meters and sound sensors in each screen, which Lantern reads after every test screening, are "
    "made by Kestrel Metrology (케스트럴계측). A screen whose brightness falls below 12 foot-lamberts is flagged. "
    "Kestrel is a sensor maker based in Yeosu and services the meters once a year.\n\n"
    "## Ticketdesk\n\n"
    "Ticketdesk was built by the Box Office Team in 2019. It sells tickets online and at the counter.\n")
OVERVIEW = (
    "# 하버시네마 회사 소개\n\n"
    "하버시네마는 부산에 본사를 둔 독립영화관이다. 상영관은 세 개이고, 해마다 10월에 단편영화제를 연다.\n")


def test_a_short_name_is_the_full_name_written_before():
    found = extracted_triples(SYSTEMS)
    assert (entity_key("Kestrel Metrology"), "located_in", entity_key("Yeosu")) in found, found
    assert not any(entity_key("Kestrel") in (s, t) for s, _, t in found)  # no second entity under the short name


def test_a_first_word_two_names_share_is_no_short_name():
    # "Orion" begins two names: which one "Orion is based in Daegu" means is not written, so neither gets the city
    found = extracted_triples("Orion Labs built the Vega module. Orion Foods sells the lunches. Orion is based in Daegu.")
    assert not any(s in (entity_key("Orion Labs"), entity_key("Orion Foods")) and p == "located_in"
                   for s, p, _ in found), found


def test_a_common_word_is_no_short_name():
    # "Quality" is written in lower case in the same text: a word, not the short name of the Quality Team
    found = extracted_triples("The Quality Team checks every lot, and the quality of each lot is kept. Quality is based in "
                     "Jeju.")
    assert not any(entity_key("Quality Team") == s and p == "located_in" for s, p, _ in found), found


@pytest.mark.parametrize("question", [
    "상영관마다 있는 밝기 측정기랑 음향 센서는 어느 회사 제품이에요? 그 회사는 어느 도시에 있어요?",
    "每个放映厅的亮度计和声音传感器是哪家公司的产品？这家公司在哪个城市？",
    "Who makes the brightness meters and sound sensors in the screens, and which city is that company based in?",
])
def test_whose_product_a_thing_is_asks_the_maker(question):
    assert {"developed_by", "located_in"} <= asked_predicates(question)
    assert {"developed_by", "located_in"} <= asked_relations(question)


@pytest.fixture(scope="module")
def cinema_kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("supplier-chain"), {"systems_overview.md": SYSTEMS,
                                                              "company_overview.md": OVERVIEW})
    yield kb
    kb.close()


@pytest.mark.parametrize("question", [
    "상영관마다 있는 밝기 측정기랑 음향 센서는 어느 회사 제품이에요? 그 회사는 어느 도시에 있어요?",
    "每个放映厅的亮度计和声音传感器是哪家公司的产品？这家公司在哪个城市？",
])
def test_the_graph_reaches_the_city_of_the_maker_of_a_described_thing(cinema_kb, question):
    # the question names nothing the graph holds: the passage that describes the sensors names their maker, and the
    # graph goes on from it to the city (not to the cinema's own city)
    engine = OfflineEngine(cinema_kb.settings, clock=lambda: date(2026, 12, 1))
    run = run_question(question, cinema_kb, engine, cinema_kb.settings)
    assert run.error is None and run.route == "graph", run.answer
    retrieved = next(s for s in run.steps if s.node == "retrieve_graph")
    facts = {tuple(entity_key(x) for x in d.metadata["triple"]) for d in retrieved.documents
             if (d.metadata or {}).get("triple")}
    makers = {entity_key("Kestrel Metrology"), entity_key("케스트럴계측")}
    assert any(s in makers and p == "located_in" and t == entity_key("Yeosu") for s, p, t in facts), facts
    assert any(p == "developed_by" and t in makers for s, p, t in facts), facts
    assert "Yeosu" in run.answer, run.answer


PACKING = (
    "# Packing house systems\n\n"
    "## Sorting line\n\n"
    "The sorting line runs from October to February. The cameras on the sorting line were supplied and installed by "
    "Pelican Vision, a machine-vision company based in Mokpo. Pelican Vision maintains the camera hardware only.\n\n"
    "## Cold store\n\n"
    "Frostkeep was built by the Logistics Team in 2022. It logs the cold-store temperature every five minutes.\n")


@pytest.fixture(scope="module")
def packing_kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("supplier-sentence"), {"systems_overview.md": PACKING,
                                                                 "company_overview.md": OVERVIEW})
    yield kb
    kb.close()


def test_a_described_thing_whose_sentence_names_its_maker(packing_kb):
    # "The cameras … were supplied … by Pelican Vision, …": no name gives the graph the cameras, so no fact says who
    # made them; the sentence that describes them states it, and the graph goes on from the name it gives
    engine = OfflineEngine(packing_kb.settings, clock=lambda: date(2026, 12, 1))
    run = run_question("선별 라인 카메라를 납품한 회사는 어디고, 그 회사 본사는 어느 도시에 있어?", packing_kb, engine,
                       packing_kb.settings)
    assert run.error is None and run.route == "graph", run.answer
    retrieved = next(s for s in run.steps if s.node == "retrieve_graph")
    described = [d for d in retrieved.documents if (d.metadata or {}).get("described_entity")]
    assert described and described[0].metadata["described_entity"] == "Pelican Vision", retrieved.documents
    facts = [tuple(d.metadata["triple"]) for d in retrieved.documents if (d.metadata or {}).get("triple")]
    assert ("Pelican Vision", "located_in", "Mokpo") in facts, facts
    assert "Pelican Vision" in run.answer and "Mokpo" in run.answer, run.answer
