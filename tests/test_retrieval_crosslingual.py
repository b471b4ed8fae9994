"""Issue 8: cross-lingual retrieval — the name channel (rag/romanize.py) and the sentence channel's weight in the fusion.

Documents written for this test: a Korean ferry timetable for a made-up island (청솔도) and a Korean museum notice
among Korean and English documents on neighbouring topics (fares, opening hours, tickets), and an English page about
a made-up hall ("Baram Hall") among Korean documents, so that the question's own language pulls towards the wrong
documents; a name written in the other script must still bring the right chunk up, and the trace must say so.
"""
from __future__ import annotations

import pytest

from rag.romanize import document_keys, hangul_keys, index_tokens, latin_keys, query_keys, romanize, split_tokens
from rag.textutil import tokenize
from rag.tools.vector import VectorTool

ISLAND_KO = (
    "# 청솔도 항로 안내\n\n"
    "청솔도 항로의 성인 편도 요금은 9,800원이다.\n"
    "배는 하루 네 번 출항하며 첫 배는 오전 7시에 떠난다.\n")
MUSEUM_KO = (
    "# 바닷가 민속 박물관 관람 안내\n\n"
    "박물관은 매주 화요일에 휴관한다.\n"
    "단체 관람은 열흘 전까지 전화로 신청해야 한다.\n")
HALL_EN = (
    "# Baram Hall concerts\n\n"
    "Baram Hall seats 420 people on two floors.\n"
    "Concert tickets go on sale three weeks before each performance.\n")
ENGLISH = {
    "bus_fares_en.md": ("# City bus fares\n\nThe adult fare on every city bus route is 1,500 won.\n"
                        "Children under six ride free with an adult.\n"),
    "ferry_office_en.md": ("# Harbour ticket office\n\nThe ticket office opens at 6 am and closes after the last "
                           "departure.\nReturn tickets are sold only on the day of travel.\n"),
    "train_en.md": ("# Coastal railway\n\nThe coastal train runs every hour between the harbour and the airport.\n"
                    "An adult one-way ticket costs 4,200 won.\n"),
}
KOREAN = {
    "theatre_ko.md": ("# 시립 극장 안내\n\n시립 극장은 객석이 300석이다.\n공연 표는 공연 한 달 전부터 판매한다.\n"),
    "library_ko.md": ("# 중앙 도서관 이용 안내\n\n열람실은 오전 9시에 문을 연다.\n좌석은 모두 120석이다.\n"),
}
TEXTS = {"island_ferry_ko.md": ISLAND_KO, "folk_museum_ko.md": MUSEUM_KO, "baram_hall_en.md": HALL_EN,
         **ENGLISH, **KOREAN}


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from tests.support.kb import build_kb

    kb = build_kb(tmp_path_factory.mktemp("crosslingual-retrieval"), TEXTS)
    yield kb
    kb.close()


@pytest.fixture(scope="module")
def tool(kb):
    return VectorTool(kb, kb.settings)


@pytest.mark.parametrize("hangul, latin", [
    ("부산", "busan"), ("제주", "jeju"), ("해운대", "haeundae"), ("광화문", "gwanghwamun"),
    ("종로", "jongno"),  # ㅇ + ㄹ → n
    ("신라", "silla"), ("설날", "seollal"), ("대관령", "daegwallyeong"),  # ㄴ/ㄹ meeting → ll
    ("국민", "gungmin"), ("독립문", "dongnimmun"), ("왕십리", "wangsimni"),  # nasalisation
    ("갈월", "garwol"), ("좋아", "joa"),  # a final before a vowel moves on (ㅎ is silent)
    ("좋다", "jota"),  # ㅎ + ㄷ → t
    ("묵호", "mukho"),  # aspiration after ㄱ is not written in names
])
def test_revised_romanization(hangul, latin):
    assert romanize(hangul) == latin


def test_name_keys_meet_across_scripts():
    # a Korean name written as one word with its common noun: the proper-name part is a key of its own
    assert "garam" in hangul_keys("가람분관") and "garambungwan" in hangul_keys("가람분관")
    assert hangul_keys("산") == []  # one syllable: too short to be a name key
    assert latin_keys("Cheongsol-do") == ["cheongsoldo", "cheongsol"]
    assert latin_keys("Children's") == ["childrens", "children"]
    # the island: the question's Latin key meets the document's Hangul key (particles stripped: 청솔도에서 → 청솔)
    doc = set(document_keys("청솔도에서 출발하는 배"))
    assert {"k:cheongsol", "k:cheongsoldo"} <= doc
    assert "k:cheongsol" in query_keys("What is the fare to Cheongsol-do?")
    # the other way: a Korean question's Hangul key meets a capitalised Latin word, not a lowercase one
    assert "l:baram" in document_keys("Baram Hall seats 420 people.")
    assert "l:baram" not in document_keys("the baram wind")
    assert "l:baram" in query_keys("바람홀은 몇 석인가요?")
    # a question never looks its own script up: same-script matching is BM25's
    assert not any(k.startswith("l:") for k in query_keys("What is the adult fare?"))
    assert not any(k.startswith("k:") for k in query_keys("성인 요금은 얼마인가요?"))
    # a particle written onto a Latin word or a number is not a name ("ParcelHub에서", "7층이" stays a word)
    assert query_keys("Zenith에서는 예약") == ["k:zenith", "l:yeyak"]


def test_cached_tokens_are_the_bm25_tokens_then_the_name_keys():
    tokens = index_tokens(ISLAND_KO)
    words, names = split_tokens(tokens)
    assert words == tokenize(ISLAND_KO)
    assert names == document_keys(ISLAND_KO) and "k:cheongsol" in names
    assert split_tokens(tokenize("plain English text")) == (tokenize("plain English text"), [])


@pytest.mark.parametrize("question, source, key", [
    ("What is the adult one-way fare to Cheongsol-do?", "island_ferry_ko.md", "cheongsol"),
    ("How many seats does Baram Hall have?", "baram_hall_en.md", None),  # same script: BM25's, no name rank
    ("바람홀은 좌석이 몇 석인가요?", "baram_hall_en.md", "baram"),
])
def test_a_name_in_the_other_script_brings_the_document_up(tool, question, source, key):
    results = tool.run(question, 3)
    sources = [r.source for r in results]
    assert source in sources, sources
    hit = results[sources.index(source)]
    meta = hit.metadata
    assert all({"name_rank", "name_score", "name_match"} <= set(r.metadata) for r in results)
    if key is None:
        assert meta["name_rank"] is None and meta["name_match"] is None
        assert meta["bm25_rank"] is not None
    else:
        assert meta["name_rank"] == 1 and key in meta["name_match"], meta
        assert meta["name_score"] > 0.0
    # the trace never claims a name match that the chunk does not hold
    for r in results:
        if r.metadata["name_rank"] is None:
            assert r.metadata["name_match"] is None
        else:
            assert all(f"{k}" in {x[2:] for x in document_keys(r.text)} for k in r.metadata["name_match"])


def test_a_question_without_names_in_the_other_script_leaves_the_name_channel_out(tool):
    results = tool.run("When does the harbour ticket office open?", 4)
    assert results[0].source == "ferry_office_en.md"
    assert all(r.metadata["name_rank"] is None for r in results)


def test_the_sentence_channel_brings_up_a_document_in_another_language(tool):
    # no shared word and no name: only the (language-centred) sentence channel can find the Korean museum notice
    results = tool.run("How many days in advance must a group visit to the folk museum be booked?", 4)
    sources = [r.source for r in results]
    assert "folk_museum_ko.md" in sources, sources
    meta = results[sources.index("folk_museum_ko.md")].metadata
    assert meta["sentence_rank"] is not None and meta["bm25_rank"] is None


def test_name_channel_follows_deletes_and_new_documents(kb, tool):
    question = "What is the adult one-way fare to Cheongsol-do?"

    def island(results):
        return next((r for r in results if r.source == "island_ferry_ko.md"), None)

    assert island(tool.run(question, 3)).metadata["name_rank"] == 1
    doc_id = next(d.doc_id for d in kb.documents() if d.source == "island_ferry_ko.md")
    assert kb.delete(doc_id)
    try:
        results = tool.run(question, 3)
        assert "island_ferry_ko.md" not in [r.source for r in results]
        assert all(r.metadata["name_rank"] is None for r in results)
    finally:
        result = kb.ingest_bytes("island_ferry_ko.md", ISLAND_KO.encode("utf-8"))
        assert result.status != "error", result
    results = tool.run(question, 3)
    assert tool.last_update["kind"] == "incremental"
    assert island(results) is not None and island(results).metadata["name_rank"] == 1


def test_key_term_coverage_counts_a_name_written_in_the_other_script():
    from rag.engines.offline.coverage import coverage_of

    cov = coverage_of(["cheongsol", "fare"], ISLAND_KO)
    assert cov.credit["cheongsol"] == 1.0 and "cheongsol" in cov.how["cheongsol"]
    assert cov.credit["fare"] == 0.0  # a common English word has no romanized twin in the Korean text
    cov = coverage_of(["바람홀", "좌석"], HALL_EN)
    assert cov.credit["바람홀"] == 1.0 and cov.credit["좌석"] == 0.0
    # a lowercase word in an English text is not a name: no credit through romanization
    assert coverage_of(["바람"], "the baram wind blows").credit["바람"] == 0.0
