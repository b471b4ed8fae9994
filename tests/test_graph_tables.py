"""Issue 8, multi-hop on documents the extractor was not tuned on (thirteenth session).

- A team directory written as a Markdown table states "who leads which team" in its header, once ("| Team | Lead |");
  no sentence trigger sees it. ``rag.extract.tables`` reads the header: a "Lead" cell leads the row's team, a
  "Korean name" cell is an alias, a column whose header says nothing known ("Where they sit") gives no relation.
- A directory line "**Team** (팀): led by Name" has no "is" before "led by".
- "X가 … 읽어 오는 시스템, 그거 만든 팀 팀장" / "the tool X pulls its numbers from" ask for X —uses→ system first.
- A question that names no entity ("the system that stayed silent in September") is followed from the entities of
  the top vector hit the graph search started from.
- A Korean question writes a Latin system name in Hangul ("프루프라인" for Proofline): matched by its consonant
  skeleton; a chain reads "uses" from its user ("Nightdesk uses Tidewell" is not the system Tidewell reads from).
- A directory's sentences refer to a group without naming it ("belongs to this team", "a member of her team"), join a
  name's parts with "&" ("Food & Beverage") and put relative clauses between a name and its relation.

Documents written for this test; real knowledge base, real graph store, real extractor, real embedder, no mocks."""
from __future__ import annotations

from datetime import date

import pytest

from rag.engines.offline import OfflineEngine
from rag.engines.offline.relations import asked_relations, graph_path
from rag.extract import extract
from rag.extract.tables import carried_header, table_relations
from rag.tools.graph import predicate_order
from rag.types import Retrieved
from rag.variants import run_question

DIRECTORY = ("# Who's who\n\n"
             "| Team | Korean name | Lead | Other members | Where they sit |\n"
             "|---|---|---|---|---|\n"
             "| Digital Team | 디지털팀 | Yerin Gong (공예린) | Taeyang Ryu (류태양), developer | head office |\n"
             "| Revenue Team | 수익관리팀 | Dohyun Maeng (맹도현) | two part-time analysts in season | head office |\n"
             "| Front Office Team | 프런트팀 | Boram Ha (하보람) | | every hotel |\n\n"
             "- **Safety Team** (안전관리팀): led by Sora Gi (기소라).\n")
SYSTEMS = ("# In-house systems\n\n"
           "## Tidewell\n\n"
           "Tidewell sets room prices. Tidewell uses Sorae: every 30 minutes it reads the booking pace from Sorae. "
           "Tidewell was built by the Revenue Team in 2022.\n\n"
           "## Sorae\n\n"
           "Sorae holds every booking. Sorae was built by the Digital Team in 2021.\n\n"
           "## Nightdesk\n\n"
           "Nightdesk uses Tidewell: it reads the room prices from Tidewell. Nightdesk was built by the Front Office "
           "Team in 2020.\n\n"
           "## Ledgerline\n\n"
           "Ledgerline uses Sorae: it pulls the nightly revenue from Sorae. Ledgerline was built by the Revenue Team.\n")
KO_QUESTION = "Tidewell이 예약 추이 읽어 오는 시스템 있잖아요, 그거 만든 팀 팀장이 누구예요?"
EN_QUESTION = "Who leads the team that built the tool Tidewell pulls its booking numbers from?"


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("graph-tables"), {"team_directory.md": DIRECTORY, "systems.md": SYSTEMS})
    yield kb
    kb.close()


def test_a_table_header_says_how_each_cell_relates_to_the_row():
    found = {(s, p, t) for s, p, t, _ in table_relations(DIRECTORY)}
    assert {("Yerin Gong", "leads", "Digital Team"), ("Dohyun Maeng", "leads", "Revenue Team"),
            ("Taeyang Ryu", "belongs_to", "Digital Team"), ("Digital Team", "also_known_as", "디지털팀"),
            ("Yerin Gong", "also_known_as", "공예린")} <= found, found
    # "Where they sit" says nothing the graph stores; "two part-time analysts in season" names nobody
    assert not any("head office" in (s, t) for s, _, t in found), found
    assert not any("analysts" in s for s, _, _ in found), found
    # the evidence is the row as written
    rows = {r for s, p, t, r in table_relations(DIRECTORY) if s == "Yerin Gong" and p == "leads"}
    assert rows == {"| Digital Team | 디지털팀 | Yerin Gong (공예린) | Taeyang Ryu (류태양), developer | head office |"}


def test_a_table_with_no_known_header_gives_nothing():
    table = "| System | If it is down | Change requests |\n|---|---|---|\n| Sorae | Digital Team | Front Office |\n"
    assert table_relations(table) == []


def test_a_chunk_that_starts_inside_a_table_reads_its_header():
    lines = DIRECTORY.splitlines()
    cut = next(i for i, line in enumerate(lines) if line.startswith("| Revenue Team"))
    before, after = "\n".join(lines[:cut]), "\n".join(lines[cut:])
    header = carried_header(before)
    assert header.startswith("| Team | Korean name | Lead |"), header
    assert ("Dohyun Maeng", "leads", "Revenue Team") in {(s, p, t) for s, p, t, _ in
                                                        table_relations(f"{header}\n{after}")}
    assert table_relations(after) == []  # without the header a row says nothing
    assert carried_header("Plain text.\n\n| a |") == ""  # no separator: not a table


def test_a_directory_line_led_by_without_a_verb():
    relations = extract(DIRECTORY, "d", "d:0", "team_directory.md").relations
    assert any((r.source, r.predicate, r.target) == ("Sora Gi", "leads", "Safety Team") for r in relations), \
        [(r.source, r.predicate, r.target) for r in relations]


@pytest.mark.parametrize("question", [KO_QUESTION, EN_QUESTION])
def test_data_taken_from_another_system_asks_uses_first(question):
    assert predicate_order(question, ["Tidewell"]) == ["uses", "developed_by", "leads"]
    assert {"uses", "developed_by", "leads"} <= asked_relations(question)


@pytest.mark.parametrize("question", [KO_QUESTION, EN_QUESTION])
def test_the_agent_follows_the_chain_through_the_table(kb, question):
    run = run_question(question, kb, OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1)), kb.settings)
    assert run.error is None, run.error
    first = run.answer.splitlines()[0]
    assert "Yerin Gong" in first or "공예린" in first, run.answer
    assert "Dohyun Maeng" not in first and "맹도현" not in first, run.answer
    # "Nightdesk uses Tidewell" is not the system Tidewell reads from: a chain reads "uses" from its user
    assert "Boram Ha" not in first and "하보람" not in first, run.answer


@pytest.mark.parametrize("hangul, latin", [("프루프라인", "Proofline"), ("콜드트랙", "Coldtrack"), ("레저라인", "Ledgerline"),
                                           ("타이드마크", "Tidemark"), ("라이트하우스", "Lighthouse"), ("블랙박스", "Blackbox")])
def test_a_latin_name_written_in_hangul_has_its_consonant_skeleton(hangul, latin):
    from rag.romanize import loanword_key

    assert loanword_key(hangul) == loanword_key(latin), (loanword_key(hangul), loanword_key(latin))


def test_a_question_that_writes_a_latin_name_in_hangul(kb):
    from rag.tools.graph import GraphTool

    question = "레저라인이 매출 끌어오는 시스템 있잖아, 그거 만든 팀 팀장이 누구야?"
    assert GraphTool(kb, kb.settings).loanword_matches(question) == {"Ledgerline": "레저라인이"}
    # too short a skeleton names nothing ("소레" is s-r: Sorae, and many other words)
    assert GraphTool(kb, kb.settings).loanword_matches("소레 만든 팀은?") == {}
    run = run_question(question, kb, OfflineEngine(kb.settings, clock=lambda: date(2026, 12, 1)), kb.settings)
    first = run.answer.splitlines()[0]
    assert "Yerin Gong" in first or "공예린" in first, run.answer


def _fact(i, s, p, o, hit_entities=("ThermoCheck",), question_entities=()):
    return Retrieved(id=str(i), text=f"{s} {p} {o}", source="systems.md", score=1.0, tool="graph",
                     metadata={"triple": [s, p, o], "question_entities": list(question_entities),
                               "hit_entities": list(hit_entities)})


def test_a_question_naming_no_entity_is_followed_from_the_vector_hit():
    question = "2025年9月那次没报警的炉温监控系统是哪个组开发的？组长是谁？"
    docs = [_fact(0, "ThermoCheck", "developed_by", "Process Group"), _fact(1, "Zhou Wei", "leads", "Process Group")]
    filled, chain, path = graph_path(question, docs, [1.0, 1.0])
    assert chain == 1.0 and path == [0, 1], (filled, path)
    # no seed from a hit either: nothing is reached
    docs = [_fact(0, "ThermoCheck", "developed_by", "Process Group", ()),
            _fact(1, "Zhou Wei", "leads", "Process Group", ())]
    assert graph_path(question, docs, [1.0, 1.0])[1] == 0.0


def _triples(text):
    return {(r.source, r.predicate, r.target) for r in extract(text, "d", "d:0", "team_directory.md").relations
            if r.predicate != "also_known_as"}


def test_a_group_the_sentence_does_not_name():
    # "this team": the group the text is about; "her team": the group the person the text is about leads
    found = _triples("- **Digital Operations Team** (디지털운영팀): led by Jiwon Hyun (현지원). Developer Dohee Lee (이도희) "
                     "belongs to this team.\n")
    assert found == {("Jiwon Hyun", "leads", "Digital Operations Team"),
                     ("Dohee Lee", "belongs_to", "Digital Operations Team")}, found
    found = _triples("- **Yuna Baek** leads the Tools & Engine Team. Dohyun Kim (김도현), a member of her team, looks "
                     "after the build agents.\n")
    assert found == {("Yuna Baek", "leads", "Tools & Engine Team"),
                     ("Dohyun Kim", "belongs_to", "Tools & Engine Team")}, found
    # no group the topic leads or is: nothing to refer to
    assert _triples("Mina Seo joined in 2021. She works closely with her team.\n") == set()


def test_names_joined_by_ampersand_and_a_relative_clause():
    assert _triples("**Kenji Arakawa** leads Food & Beverage.\n") == {("Kenji Arakawa", "leads", "Food & Beverage")}
    # "who runs the trials" has no named object: the member relation, not "owns"
    found = _triples("- **Soft Robotics Group** is led by Prof. Taeyang Moon. PhD student Dahye Lim, who runs the "
                     "gripper trials, is a member of this group.\n")
    assert found == {("Taeyang Moon", "leads", "Soft Robotics Group"),
                     ("Dahye Lim", "belongs_to", "Soft Robotics Group")}, found
    # names that merely sit side by side stay unrelated
    assert _triples("Jiwon Hyun and Yuna Kim gave a joint talk at the Korea Veterinary Practice Forum.\n") == set()


def test_a_chain_reads_uses_from_its_user():
    from rag.graphstore import entity_key
    from rag.tools.graph import chain_facts
    from rag.types import Relation

    def rel(s, p, o):
        return Relation(source=s, predicate=p, target=o, evidence=f"{s} {p} {o}.", doc_id="d", chunk_id="d:0")

    # the fact walked against its direction scores higher on its own ("Nightdesk uses Tidewell" names more of the
    # question's words); the chain still goes the way the question asks: Tidewell —uses→ Sorae
    ranked = [(0.9, 1, rel("Nightdesk", "uses", "Tidewell"), 0.5), (0.8, 1, rel("Tidewell", "uses", "Sorae"), 0.4),
              (0.5, 2, rel("Sorae", "developed_by", "Digital Team"), 0.0),
              (0.5, 2, rel("Nightdesk", "developed_by", "Front Office Team"), 0.0),
              (0.4, 3, rel("Yerin Gong", "leads", "Digital Team"), 0.0),
              (0.4, 3, rel("Boram Ha", "leads", "Front Office Team"), 0.0)]
    chain = chain_facts(ranked, {entity_key("Tidewell")}, ["uses", "developed_by", "leads"])
    assert [(e[2].source, e[2].target) for e in chain] == [("Tidewell", "Sorae"), ("Sorae", "Digital Team"),
                                                           ("Yerin Gong", "Digital Team")], chain


def test_a_member_relation_answers_either_word():
    # "속한" asks part_of (a team in a division) as well as it could ask belongs_to (a person in a team): a fact of
    # either relation fills it
    question = "Minji Park이 속한 팀 이름과 그 팀이 담당하는 제품을 알려줘."
    assert {"part_of", "owns"} <= asked_relations(question)

    docs = [_fact(0, "Minji Park", "belongs_to", "Search Platform Team", (), ["Minji Park"]),
            _fact(1, "Search Platform Team", "owns", "Atlas", (), ["Minji Park"])]
    filled, chain, path = graph_path(question, docs, [1.0, 1.0])
    assert chain == 1.0 and path == [0, 1], (filled, path)
