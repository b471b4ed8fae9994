"""Issue 8, relation extraction on documents it was not tuned on (twentieth session): a chunk that starts inside a
section is read with the section's heading, so a pronoun at its top ("Its crash panel uses …") stands for the name the
heading gives; "The software was written by X" says who developed it; a unit named in generic words ("the Customer
Care Team") is a name inside a sentence, "Orbis's Data Unit" is the unit, and longer titles ("the Chief Executive and
head pharmacist of") say who leads, a lead engineer or a director's daughter do not; "has its head office in" and
Chinese "X总部位于Y" say where a company is, at the city of an address.

Documents written for this test; real knowledge base (real chunker, real extractor, real graph store), no mocks."""
from __future__ import annotations

import pytest

from rag.extract import extract
from rag.graphstore import entity_key
from rag.sentences import carried_heading

# the first paragraph of each section is longer than the chunk size below, so the paragraph that starts with a
# pronoun opens a chunk of its own
FILLER = ("It shows the number of open tickets, the weekly sign-ups, the share of players in each region, the queue "
          "length of every support channel and the revenue of the current season for every market we serve. ")
TOOLS = ("# Studio tools\n\n"
         "## Beacon — support dashboard\n\n"
         "Beacon was built by the Support Tools Team in 2024. " + FILLER * 2 + "\n\n"
         "Its ticket panel uses Harbourlog: the open-ticket count shown in Beacon comes straight from Harbourlog.\n\n"
         "## Harbourlog — ticket store\n\n"
         "Harbourlog keeps every player ticket for two years. " + FILLER * 2 + "\n\n"
         "It was built by the Platform Data Team.\n")


# chunks of 300 characters overlapping by 120: the second chunk starts with the last paragraph of Beacon's section,
# and the first chunk ends with the next heading (the overlap holds both)
OVERLAPPING = ("## Beacon — dashboard\n\nBeacon was built by the Support Team. "
               + "It shows numbers for the live team. " * 3
               + "\n\nIt uses Ledgerline for the revenue panel.\n\n## Harbourlog — ticket store\n\nHarbourlog keeps "
               "tickets. " + "It stores every ticket for two years. " * 3 + "\n\n"
               + "Tickets are kept in a store of their own for all players. " * 4)


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("section-topic"), {"tools.md": TOOLS}, chunk_size=400, chunk_overlap=0)
    yield kb
    kb.close()


def _triples(kb) -> set[tuple[str, str, str]]:
    from rag.eval.relations import graph_relations

    return {(entity_key(r.source), r.predicate, entity_key(r.target)) for r in graph_relations(kb.graph)}


def test_each_chunk_gets_the_heading_it_starts_under():
    chunks = ["# Tools\n\n## Beacon — dashboard\n\nBeacon was built by A.", "Its panel uses B.",
              "## Next\n\nNothing here.", "Still nothing."]
    assert carried_heading(chunks) == ["", "## Beacon — dashboard", "", "## Next"]
    # a plain-text document: its bracketed section title; a chunk that starts with its own heading gets none
    assert carried_heading(["안내\n\n[참여 조건]\n- 나이: 2세", "- 체중: 25kg 이상", "[혜택]\n- 사료"]) == \
        ["", "## 참여 조건", ""]
    # a document without headings gets nothing
    assert carried_heading(["Plain text one.", "Plain text two."]) == ["", ""]


def test_a_pronoun_at_the_top_of_a_chunk_stands_for_the_section_name(kb):
    chunks = [c for c in kb.vectors.all_chunks() if c.source == "tools.md"]
    opening = [c for c in chunks if c.text.lstrip().startswith(("Its ticket panel", "It was built"))]
    assert len(opening) == 2, [c.text[:40] for c in chunks]  # the chunker put each pronoun at a chunk's top
    triples = _triples(kb)
    assert (entity_key("Beacon"), "uses", entity_key("Harbourlog")) in triples
    assert (entity_key("Harbourlog"), "developed_by", entity_key("Platform Data Team")) in triples
    # the heading is context, not a second copy of the first chunk's facts under another chunk
    assert (entity_key("Beacon"), "developed_by", entity_key("Support Tools Team")) in triples


def test_without_the_heading_the_pronoun_has_nothing_to_stand_for():
    found = extract("Its ticket panel uses Harbourlog: the count shown in Beacon comes from Harbourlog.", "d", "d:1")
    assert not [r for r in found.relations if r.predicate == "uses"]


def test_written_by_says_who_developed_it():
    found = extract("## Gradewise\n\nGradewise assigns the grade. The software was written by the Plant Systems "
                    "Team in 2020.", "d", "d:0")
    assert [(r.source, r.predicate, r.target) for r in found.relations] == \
        [("Gradewise", "developed_by", "Plant Systems Team")]


@pytest.mark.parametrize("sentence, triple", [
    # a unit named in generic words, capitalised inside the sentence, is a name
    ("Mina Seo (서민아) belongs to the Customer Care Team.", ("Mina Seo", "belongs_to", "Customer Care Team")),
    # the possessor names whose unit it is; the unit is the object
    ("Jaeho Lim, who leads Orbis's Data Unit, signs every release.", ("Jaeho Lim", "leads", "Data Unit")),
    # a title of more than two words before "of"
    ("Dr. Sora Baek is the Chief Executive and head pharmacist of Greenleaf Pharmacy Group.",
     ("Sora Baek", "leads", "Greenleaf Pharmacy Group")),
    # "has its head office in": an address runs from the street to the city, the city is where the subject is
    ("Corvid Labs (코르비드랩스) has its head office in Haeundae-gu, Busan; its lab is in Sejong.",
     ("Corvid Labs", "located_in", "Busan")),
    ("Harbourline has its only office in Jung-gu, Incheon.", ("Harbourline", "located_in", "Incheon")),
    ("Blueline Systems is based in Busan, and Harbour Ltd supplies it.", ("Blueline Systems", "located_in", "Busan")),
    # Chinese "X总部位于Y": the headquarters (总部) is not part of X's name; a district follows its city
    ("星河物流总部位于杭州市西湖区。", ("星河物流", "located_in", "杭州市")),
    ("云帆总部位于韩国釜山海云台区。", ("云帆", "located_in", "釜山海云台区")),
])
def test_the_relation_a_sentence_states(sentence, triple):
    found = extract(sentence, "d", "d:0")
    assert [(r.source, r.predicate, r.target) for r in found.relations if r.predicate != "also_known_as"] == [triple]


@pytest.mark.parametrize("sentence", [
    "Mina Seo is the lead engineer at Orbis Labs.",  # a lead engineer leads no company
    "Mina Seo is the head chef at Harbour Grill.",
    "Mina Seo is the daughter of the director of Tamna Labs.",
    "Orbis Labs update: the head of the Data Unit, Mina Seo, left in May.",
])
def test_titles_that_say_nobody_leads_it(sentence):
    assert not [r for r in extract(sentence, "d", "d:0").relations if r.predicate == "leads"]


def test_a_chunk_in_the_overlap_keeps_the_heading_it_starts_under():
    from rag.loaders import split_text

    chunks = split_text(OVERLAPPING, 300, 120)
    at = next(i for i, c in enumerate(chunks) if c.startswith("It uses Ledgerline"))
    assert at > 0 and "## Harbourlog" in chunks[at - 1] and "## Harbourlog" in chunks[at]  # in the overlap
    assert carried_heading(chunks)[at] == "## Beacon — dashboard"


def test_generic_words_at_the_start_name_nothing():
    # "Teams and Products" opening a sentence, and a heading made of generic words, stay no entity
    assert not extract("Teams and Products are listed below.", "d", "d:0").entities
    assert not extract("## Client Services Team\n\nOpening hours are listed below.", "d", "d:0").entities


@pytest.mark.parametrize("sentence, place", [
    ("Corvid Labs is based in Busan, Harbour Ltd supplies its parts.", "Busan"),  # an address ends at its city
    ("Tamna Labs is headquartered in Seoul, South Korea.", "Seoul"),
    ("Corvid Labs is based in Busan, Mina Seo said on Monday.", "Busan"),
])
def test_an_address_run_stops_at_the_city(sentence, place):
    found = [(r.source, r.predicate, r.target) for r in extract(sentence, "d", "d:0").relations]
    assert [t for t in found if t[1] == "located_in"] == [(sentence.split(" is ")[0], "located_in", place)]


def test_no_place_from_an_area_or_a_generic_company():
    assert not extract("这个社区的居民很多，地区的天气也好。请在吸烟区吸烟。", "d", "d:0").entities
    found = extract("该公司总部位于深圳市南山区。", "d", "d:0")
    assert "公司" not in {e.name for e in found.entities} and not found.relations


def test_sentences_in_the_overlap_keep_the_section_they_start_under(tmp_path):
    """The sentence units stored at ingest (answer selection's sections) are split from where each chunk starts, as
    the carried heading is: the first sentence of a chunk that begins before the next heading stays in its section."""
    from rag.embeddings import get_embedder
    from rag.loaders import split_text
    from rag.sentences import embed_chunks, start_states
    from rag.types import Chunk
    from tests.support.kb import make_settings

    chunks = [Chunk("d", "tools.md", i, text) for i, text in enumerate(split_text(OVERLAPPING, 300, 120))]
    at = next(i for i, c in enumerate(chunks) if c.text.startswith("It uses Ledgerline"))
    assert "## Harbourlog" in chunks[at - 1].text  # the next heading is in the overlap
    embedder = get_embedder(make_settings(tmp_path))
    # in one batch, and as a later batch with the states ingest works out once for the whole document
    states = start_states([c.text for c in chunks])
    for rows in (embed_chunks(embedder, chunks)[1], embed_chunks(embedder, chunks[at:], states=states[at:])[1]):
        units = {u.text: u.section for _, _, _, us, _ in rows for u in us}
        assert units["It uses Ledgerline for the revenue panel."] == "Beacon — dashboard"
        assert units["Harbourlog keeps tickets."] == "Harbourlog — ticket store"
