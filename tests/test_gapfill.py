"""The naive generator answers an asked part the context never states (rag/engines/offline/gapfill.py): composed,
not quoted, recorded in the reason, labelled F3 — and only then (single-part questions, a context that talks about
it, a context in another language, every other generation mode: nothing composed). Documents written for the test."""
from __future__ import annotations

import pytest

from rag.config import Settings
from rag.engines.offline import OfflineEngine
from rag.engines.offline.critics import claim_sentences
from rag.engines.offline.gapfill import asked_parts
from rag.types import Grade, Retrieved

ATLAS_EN = "Atlas is a data platform built by Hanbit Labs. The Atlas team is led by Kim Minji."
ATLAS_KO = "Atlas는 한빛랩스가 만든 데이터 플랫폼이다. Atlas 팀장은 김민지다."


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    return OfflineEngine(Settings(data_dir=tmp_path_factory.mktemp("gapfill")))


def chunk(text: str, source: str = "atlas.md") -> Retrieved:
    return Retrieved(id=f"{source}:0", text=text, source=source, score=0.9, tool="vector", doc_id=source,
                     chunk_index=0)


def test_asked_parts_need_a_question_word_and_two_key_terms():
    assert asked_parts("Who leads the Atlas team, and which city does she work in?") == [
        "Who leads the Atlas team", "which city does she work in"]
    # a lead-in clause is context, not a part of its own: one part, so nothing is ever composed for it
    assert asked_parts("연봉 계약할 때 참고하려고 하는데, 2023년 최저임금은 시간당 얼마였어요?") == [
        "연봉 계약할 때 참고하려고 하는데, 2023년 최저임금은 시간당 얼마였어요?"]
    assert asked_parts("Who leads the Atlas team?") == ["Who leads the Atlas team?"]


def test_naive_fills_the_part_no_sentence_states_with_the_closest_name(engine):
    answer = engine.generate("Who leads the Atlas team, and which city does she work in?", [chunk(ATLAS_EN)], None,
                             "naive")
    composed = 'The answer to "which city does she work in" is Hanbit Labs.'
    conclusion, evidence = answer.text.split("\nEvidence:")
    assert conclusion.endswith(composed) and "[1]" in conclusion and composed not in evidence
    assert "composed, not quoted" in answer.reason and "'Hanbit Labs' from atlas.md #0" in answer.reason
    verdict = engine.grade_hallucination("", answer.text, [chunk(ATLAS_EN)])
    assert verdict.details["unsupported"] == [composed]  # the quoted sentence is supported, the composed one not
    korean = engine.generate("Atlas 팀장은 누구이고, 그는 어느 도시에서 일해?", [chunk(ATLAS_KO)], None, "naive")
    assert korean.text.splitlines()[0].endswith("“그는 어느 도시에서 일해”에 대한 답은 한빛랩스입니다.")
    ko_composed = "“그는 어느 도시에서 일해”에 대한 답은 한빛랩스입니다."
    assert ko_composed in claim_sentences(korean.text)
    assert engine.grade_hallucination("", korean.text, [chunk(ATLAS_KO)]).details["unsupported"] == [ko_composed]


@pytest.mark.parametrize("question, text", [
    ("Who leads the Atlas team?", ATLAS_EN),  # one asked part: the quoted answer stands
    ("Who leads the Atlas team, and which city does she work in?",  # the context does talk about it
     "Atlas is built by Hanbit Labs. The Atlas team is led by Kim Minji, who works in Seoul."),
    ("Atlas 팀장은 누구이고, 그는 어느 도시에서 일해?", ATLAS_EN),  # another language: absence is no evidence
    ("What is the cafeteria menu, and when does the shuttle leave?", ATLAS_EN),  # off topic: nothing stated
])
def test_nothing_is_composed_where_the_gap_is_not_clear(engine, question, text):
    answer = engine.generate(question, [chunk(text)], None, "naive")
    assert "composed" not in answer.reason
    assert answer.text.splitlines()[0].endswith("]")  # the conclusion is the quoted sentence and its citation


def test_judging_generators_never_compose(engine):
    question, docs = "Who leads the Atlas team, and which city does she work in?", [chunk(ATLAS_EN)]
    answer = engine.generate(question, docs, [Grade("correct", 0.9, "")], "answer")
    assert "Hanbit Labs." not in answer.text.splitlines()[0] and "composed" not in answer.reason
    assert "'city'" in answer.text  # it says what the documents do not confirm instead
