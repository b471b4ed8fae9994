"""Issue 8: relations on text the rules were not tuned on — the leaders listed on a people page.

A people page titled after its organisation ("# Hanbyeol Ceramics — People") lists its leaders as "- **Name (alias)** —
founder and CEO. …": the line names no organisation; the page's title does, and only the document's first chunk
holds the title, so the page is read whole at ingest. A founder gives founded_by, a chief executive leads; another
role (CTO, head glaze chemist) gives no leads relation, and a line that names where the role is held ("CEO of Daon
Logistics") is not about the page's organisation. Its opening line says where the organisation is: "has its head
office on the second floor of the Sindun Pottery Hall in Suyeong-dong, Icheon" (the city, not the building). The
documents are written for this test.
"""
from __future__ import annotations

import pytest

from rag.eval.relations import graph_relations
from rag.graphstore.base import entity_key

PAGE = (
    "# Hanbyeol Ceramics — People\n\n"
    "Hanbyeol Ceramics (한별도예) has its head office on the second floor of the Sindun Pottery Hall in Suyeong-dong, "
    "Icheon. This page says who runs what.\n\n"
    "_Kept by the office. Last edited 2 March 2026._\n\n"
    + "The studio has a throwing room, two gas kilns and a glaze lab. Orders are packed on Fridays and leave on "
      "Mondays; the shop in Icheon opens at ten every day but Tuesday. " * 4 + "\n\n"
    "## Leadership\n\n"
    "- **Sora Baek (백소라)** — co-founder and CEO. She threw pots in a rented shed for six years before the first "
    "kiln was built.\n"
    "- **Inho Yeom (염인호)** — head glaze chemist and co-founder. The Glaze Lab reports to him.\n"
    "- **Ara Seo (서아라)** — CEO of Daon Logistics, our courier partner, who joins the Monday call.\n")


def _triples(data_dir, text: str) -> set[tuple[str, str, str]]:
    from tests.support.kb import build_kb

    kb = build_kb(data_dir, {"people.md": text})
    try:
        doc_id = kb.documents()[0].doc_id
        assert len(kb.vectors.chunk_ids(doc_id)) >= 2  # the leaders are not in the first chunk
        return {(entity_key(r.source), r.predicate, entity_key(r.target)) for r in graph_relations(kb.graph)}
    finally:
        kb.close()


@pytest.fixture(scope="module")
def page_triples(tmp_path_factory):
    return _triples(tmp_path_factory.mktemp("people-page"), PAGE)


def test_the_leaders_of_a_people_page_lead_and_found_the_organisation_its_title_names(page_triples):
    found = page_triples
    org = entity_key("Hanbyeol Ceramics")
    assert (entity_key("Sora Baek"), "leads", org) in found, found
    assert (org, "founded_by", entity_key("Sora Baek")) in found, found
    assert (org, "founded_by", entity_key("Inho Yeom")) in found, found


def test_a_head_office_inside_a_building_is_in_the_city_after_it(page_triples):
    org = entity_key("Hanbyeol Ceramics")
    assert (org, "located_in", entity_key("Icheon")) in page_triples, page_triples
    assert not any(s == org and p == "located_in" and t != entity_key("Icheon") for s, p, t in page_triples)


def test_other_roles_and_other_organisations_give_no_such_relation(page_triples):
    found = page_triples
    org = entity_key("Hanbyeol Ceramics")
    assert (entity_key("Inho Yeom"), "leads", org) not in found  # a co-founder, not the chief executive
    assert not any(entity_key("Ara Seo") in (s, t) and org in (s, t) for s, _, t in found), found


def test_a_title_that_names_nothing_in_the_text_gives_no_organisation(tmp_path):
    page = PAGE.replace("# Hanbyeol Ceramics — People", "# Who's Who — Spring Edition")
    page = page.replace("Hanbyeol Ceramics (한별도예) has", "We have")
    found = _triples(tmp_path, page)
    assert not any(p in ("leads", "founded_by") and entity_key("Sora Baek") in (s, t) for s, p, t in found), found
