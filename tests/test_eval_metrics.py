"""Metric functions and the question-set loader on hand-made cases, edge cases included."""
from __future__ import annotations

import json

import pytest

from rag.eval.metrics import (
    aggregate, answer_similarity, context_precision, context_recall, is_relevant, key_fact_hit, matched_groups,
    normalize_fact, percentile, reference_context_recall, routing_confusion, score_run, tokens, used_documents,
)
from rag.eval.questions import Question, QuestionSetError, load_questions, load_questions_bytes, parse_questions
from rag.trace import Attempt, DocRecord, Run, Step
from rag.types import ModelCall


# ---- key facts ---------------------------------------------------------------------------------------------------
def test_key_fact_hit_needs_one_string_of_every_group():
    expected = [["Seoul", "서울"], ["2019"]]
    assert key_fact_hit("It moved to 서울 in 2019.", expected) is True
    assert key_fact_hit("It moved to Seoul.", expected) is False
    assert matched_groups("It moved to Seoul.", expected) == [True, False]


def test_key_fact_hit_is_case_space_and_width_insensitive():
    assert key_fact_hit("the model is BGE -Large-ZH-\tv1.5", [["bge-large-zh-v1.5"]]) is True
    assert key_fact_hit("ＳＥＯＵＬ", [["seoul"]]) is True  # full-width letters, NFKC
    assert key_fact_hit("최저 임금은 9 860원", [["9860원"]]) is True
    assert normalize_fact(" A\tb\nC ") == "abc"


def test_key_fact_edge_cases():
    assert key_fact_hit("anything", []) is None  # no expected facts: does not apply
    assert key_fact_hit("", [["x"]]) is False  # empty answer never hits
    assert key_fact_hit("   ", [["x"]]) is False
    assert key_fact_hit("x", [[""]]) is False  # an empty fact matches nothing


# ---- tokens and reference metrics --------------------------------------------------------------------------
def test_tokens_split_cjk_into_bigrams_and_keep_words():
    assert tokens("RAG 检索增强 2019년") == ["rag", "检索", "索增", "增强", "2019", "년"]
    assert tokens("") == []


def test_answer_similarity():
    assert answer_similarity("the cat sat", "the cat sat") == pytest.approx(1.0)
    assert answer_similarity("the dog", "the cat") == pytest.approx(0.5)
    assert answer_similarity("", "the cat") == 0.0
    assert answer_similarity("anything", None) is None
    assert answer_similarity("anything", "  ") is None
    assert answer_similarity("완전히 다른", "zzz qqq") == 0.0


def test_reference_context_recall_counts_attributed_sentences():
    ref = "Chroma is a vector store. Neo4j is a graph database."
    assert reference_context_recall(["Chroma is a vector store for embeddings."], ref) == pytest.approx(0.5)
    assert reference_context_recall(["Chroma vector store", "Neo4j graph database"], ref) == pytest.approx(1.0)
    assert reference_context_recall([], ref) == 0.0
    assert reference_context_recall(["x"], None) is None
    assert reference_context_recall(["检索增强生成"], "RAG（检索增强生成）。") == pytest.approx(1.0)


# ---- ID-based context precision / recall -------------------------------------------------------------------
def _doc(source, doc_id=None, grade=None, attempt=1, id_=None, text="t", metadata=None):
    return DocRecord(id=id_ or f"{source}:{attempt}", source=source, text=text, score=0.5, tool="vector",
                     doc_id=doc_id, attempt=attempt, grade=grade, metadata=metadata or {})


def test_relevance_matches_file_name_stem_and_doc_id():
    assert is_relevant(_doc("doc-001.md"), ["doc-001"])
    assert is_relevant(_doc("doc-001.md"), ["DOC-001.MD"])
    assert is_relevant(_doc("sub/dir/facts.md"), ["facts.md"])
    assert is_relevant(_doc("x.md", doc_id="abc123"), ["abc123"])
    assert is_relevant(_doc("graph", metadata={"source_file": "people.md"}), ["people.md"])
    assert not is_relevant(_doc("doc-0011.md"), ["doc-001"])


def test_context_precision_and_recall():
    docs = [_doc("a.md"), _doc("a.md", id_="a2"), _doc("b.md"), _doc("c.md")]
    assert context_precision(docs, ["a.md"]) == pytest.approx(0.5)
    assert context_recall(docs, ["a.md", "z.md"]) == pytest.approx(0.5)
    assert context_recall(docs, ["a", "b"]) == pytest.approx(1.0)


def test_context_metrics_edge_cases():
    assert context_precision([_doc("a.md")], []) is None  # no relevant sources: does not apply
    assert context_recall([_doc("a.md")], []) is None
    assert context_precision([], ["a.md"]) is None  # precision of nothing is undefined
    assert context_recall([], ["a.md"]) == 0.0  # but nothing relevant was found


# ---- percentile -------------------------------------------------------------------------------------------------
def test_percentile():
    assert percentile([], 95) is None
    assert percentile([None, 7.0], 95) == 7.0
    assert percentile(range(1, 101), 50) == pytest.approx(50.5)
    assert percentile([10, 20], 95) == pytest.approx(19.5)


# ---- runs -> rows -> aggregates --------------------------------------------------------------------------------
def _run(variant, answer, *, route="vector", path=("classify", "retrieve_vector", "generate"), docs=(),
         abstained=False, partial=False, calls=1, wall=100.0, error=None):
    step = Step(index=0, node="retrieve_vector", started_at="t", duration_ms=1.0, documents=list(docs),
                model_calls=[ModelCall(model="m", purpose="generate", prompt=[], raw_output="",
                                       prompt_tokens=10, completion_tokens=5) for _ in range(calls)])
    return Run(question="q", variant=variant, settings={}, route=route, path=list(path), steps=[step],
               attempts=[Attempt(number=1, strategy=route or "vector", query="q")], answer=answer,
               abstained=abstained, partial=partial, wall_ms=wall, error=error)


COVERED = Question(id="c1", question="Where?", expected_route="vector", kind="covered", expected=[["Seoul"]],
                   relevant_sources=["a.md"], reference="It is in Seoul.")
TRAP = Question(id="u1", question="Minimum wage 2023?", expected_route="vector", kind="uncovered")


def test_used_documents_are_what_the_generator_was_given():
    run = _run("agentic", "x", docs=[_doc("a.md", grade="correct", id_="a"), _doc("b.md", grade="ambiguous", id_="b"),
                                     _doc("c.md", grade="incorrect", id_="c")])
    run.steps.append(Step(index=1, node="generate", started_at="t", duration_ms=1.0,
                          inputs={"doc_ids": ["b", "a", "a", "gone"]}))
    assert [d.id for d in used_documents(run)] == ["b", "a"]


def test_used_documents_fallback_without_recorded_ids():
    graded = _run("agentic", "x", docs=[_doc("a.md", grade="correct"), _doc("b.md", grade="incorrect", id_="b"),
                                        _doc("c.md", grade="ambiguous", id_="c")])
    assert [d.source for d in used_documents(graded)] == ["a.md", "c.md"]
    naive = _run("naive", "x", docs=[_doc("a.md"), _doc("b.md", id_="b")])
    assert [d.source for d in used_documents(naive)] == ["a.md", "b.md"]


def test_context_metrics_do_not_apply_to_uncovered_decoys():
    trap = Question(id="u2", question="price?", kind="uncovered", relevant_sources=["a.md"])
    row = score_run(trap, _run("naive", "100 won", docs=[_doc("a.md")]))
    assert row["context_precision"] is None and row["context_recall_retrieved"] is None
    assert row["silent_failure"] is True


def test_score_run_covered_hit_and_context():
    run = _run("agentic", "It is in Seoul.", docs=[_doc("a.md", grade="correct", text="The office is in Seoul."),
                                                   _doc("b.md", grade="incorrect", id_="b")])
    row = score_run(COVERED, run)
    assert row["hit"] is True and row["silent_failure"] is False and row["route_correct"] is True
    assert row["context_precision"] == 1.0 and row["context_precision_retrieved"] == 0.5
    assert row["context_recall"] == 1.0
    assert row["answer_similarity"] == pytest.approx(1.0)
    assert row["reference_context_recall"] == pytest.approx(1.0)
    assert row["run_id"] == run.run_id and row["tokens"] == 15


def test_score_run_silent_failures():
    wrong = score_run(COVERED, _run("naive", "It is in Busan.", route="vector"))
    assert wrong["hit"] is False and wrong["silent_failure"] is True
    flagged_wrong = score_run(COVERED, _run("agentic", "Not found in the documents.", abstained=True))
    assert flagged_wrong["hit"] is False and flagged_wrong["silent_failure"] is False
    trap_answered = score_run(TRAP, _run("naive", "The salary contract says 3 million won."))
    assert trap_answered["silent_failure"] is True and trap_answered["hit"] is None
    trap_partial = score_run(TRAP, _run("agentic", "Found: … / not found: the 2023 wage.", partial=True))
    assert trap_partial["flagged"] is True and trap_partial["silent_failure"] is False


def test_web_question_without_facts_needs_web_evidence_or_a_flag():
    q = Question(id="w1", question="Today's KRW/USD rate?", expected_route="web", kind="web")
    from_kb = _run("naive", "The rate is in the HR doc.", docs=[_doc("hr.md")])
    assert score_run(q, from_kb)["silent_failure"] is True
    flagged = _run("agentic", "Web search is not configured.", route="web", abstained=True)
    assert score_run(q, flagged)["silent_failure"] is False
    web_doc = DocRecord(id="https://x", source="https://x", text="1,380 won", score=0.9, tool="web", attempt=1,
                        grade="correct")
    from_web = _run("agentic", "About 1,380 won.", route="web", docs=[web_doc])
    assert score_run(q, from_web)["silent_failure"] is False


def test_score_run_empty_answer_and_no_facts():
    q = Question(id="d1", question="Translate RAG", expected_route="direct", kind="direct")
    row = score_run(q, _run("agentic", "", route="direct", path=["classify", "direct_generate"]))
    assert row["hit"] is None and row["silent_failure"] is None
    assert row["context_precision"] is None and row["context_recall"] is None and row["answer_similarity"] is None
    row = score_run(COVERED, _run("naive", ""))
    assert row["hit"] is False and row["silent_failure"] is True and row["answer_similarity"] == 0.0


def test_aggregate_and_confusion():
    rows = [
        score_run(COVERED, _run("naive", "Seoul", wall=100)),
        score_run(TRAP, _run("naive", "3 million won", wall=300)),
    ]
    m = aggregate(rows)
    assert m["routing_accuracy"] == 1.0
    assert m["key_fact_hit_rate"] == 1.0
    assert m["abstention_rate"] == 0.0
    assert m["silent_failure_rate"] == 0.5 and m["silent_failure_rate_uncovered"] == 1.0
    assert m["wall_ms_mean"] == 200.0 and m["wall_ms_p95"] == pytest.approx(290.0)
    assert m["llm_calls_mean"] == 1.0 and m["re_route_rate"] == 0.0
    assert m["answer_similarity"] is not None
    rows.append(score_run(TRAP, _run("agentic", "not found", route="graph",
                                      path=["classify", "retrieve_graph", "re_route", "retrieve_web"],
                                      abstained=True)))
    assert routing_confusion(rows) == {"vector": {"vector": 2, "graph": 1}}
    assert aggregate(rows)["re_route_rate"] == pytest.approx(1 / 3, abs=1e-4)


def test_aggregate_metrics_that_do_not_apply_are_none():
    q = Question(id="d1", question="2+2?", kind="direct")
    m = aggregate([score_run(q, _run("agentic", "4", route="direct"))])
    for key in ("routing_accuracy", "key_fact_hit_rate", "abstention_rate", "silent_failure_rate",
                "context_precision", "context_recall", "answer_similarity"):
        assert m[key] is None, key
    assert aggregate([])["wall_ms_mean"] is None


def test_errored_runs_are_counted_not_scored():
    m = aggregate([score_run(COVERED, _run("naive", "", error="tool crashed"))])
    assert m["n_errors"] == 1 and m["key_fact_hit_rate"] is None and m["silent_failure_rate"] is None


# ---- question sets --------------------------------------------------------------------------------------------
def test_parse_questions_full_line_and_defaults():
    qs = parse_questions([
        json.dumps({"id": "q1", "question": "Where?", "expected_route": "vector", "kind": "covered",
                    "expected": [["Seoul", "서울"], "2019"], "relevant_sources": "a.md", "reference": "r",
                    "note": "kept"}, ensure_ascii=False),
        "",
        json.dumps({"id": 2, "question": "Hi"}),
    ])
    q1, q2 = qs.questions
    assert q1.expected == [["Seoul", "서울"], ["2019"]] and q1.relevant_sources == ["a.md"]
    assert q1.extra == {"note": "kept"} and q1.effective_kind == "covered"
    assert q2.id == "2" and q2.effective_kind is None and q2.expected == []
    assert parse_questions(qs.to_jsonl()).questions == qs.questions  # round trip


def test_parse_questions_reports_every_bad_line():
    text = "\n".join([
        '{"id": "q1", "question": "ok"}',
        '{"id": "q2", "question": "x", "expected_route": "sparql"}',
        'not json',
        '{"question": "no id"}',
        '{"id": "q1", "question": "dup"}',
        '{"id": "q5", "question": "x", "expected": [[]], "kind": "maybe"}',
        '[1, 2]',
    ])
    with pytest.raises(QuestionSetError) as err:
        parse_questions(text, name="set.jsonl")
    msg = str(err.value)
    assert "6 bad line(s)" in msg
    for needle in ("line 2: 'expected_route' is 'sparql'", "line 3: not valid JSON", "line 4: 'id' is missing",
                   "line 5: id 'q1' is already used on line 1", "'kind' is 'maybe'", "expected[0]",
                   "line 7: expected a JSON object"):
        assert needle in msg, needle


def test_load_questions_errors(tmp_path):
    with pytest.raises(QuestionSetError, match="not found"):
        load_questions(tmp_path / "missing.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    with pytest.raises(QuestionSetError, match="no questions"):
        load_questions(empty)
    with pytest.raises(QuestionSetError, match="not UTF-8"):
        load_questions_bytes("bin.jsonl", b"\xff\xfe\x00bad")
    ok = tmp_path / "ok.jsonl"
    ok.write_text('\ufeff{"id": "a", "question": "b"}\n', encoding="utf-8")
    assert load_questions(ok).questions[0].id == "a"


def _scored(question, answer, quality, context="", **kw):
    run = _run("agentic", answer, docs=[_doc("a.md", text=context)] if context else (), **kw)
    run.attempts = [Attempt(number=1, strategy="vector", query="q", quality=0.2),
                    Attempt(number=2, strategy="vector", query="q", quality=quality)]
    return score_run(question, run)


def test_quality_is_the_best_attempt_score_and_naive_has_none():
    assert _scored(COVERED, "Seoul", 0.7)["quality"] == 0.7
    assert score_run(COVERED, _run("naive", "Seoul"))["quality"] is None  # its one attempt records no score


def test_facts_in_context_read_the_retrieved_documents_not_the_answer():
    held = _scored(COVERED, "Not found.", 0.3, context="The office is in Seoul.", abstained=True)
    assert held["facts_in_context"] is True and held["hit"] is False  # there to be found, and missed
    assert _scored(COVERED, "It is in Seoul.", 0.9, context="The office moved.")["facts_in_context"] is False
    assert _scored(TRAP, "3 million won", 0.6, context="Seoul")["facts_in_context"] is None  # traps have none
    # the rate over covered questions: how often retrieval put the answer in front of the run
    rows = [held, _scored(COVERED, "x", 0.9, context="Busan"), _scored(TRAP, "y", 0.5, context="Seoul")]
    assert aggregate(rows)["facts_in_context_rate"] == 0.5


def test_quality_auroc_says_whether_the_score_ranks_answerable_contexts_first():
    there = [_scored(COVERED, "x", q, context="It is in Seoul.") for q in (0.9, 0.8)]
    missing = [_scored(COVERED, "x", 0.7, context="It is in Busan."), _scored(TRAP, "3 million won", 0.6)]
    assert aggregate(there + missing)["quality_auroc"] == 1.0
    swapped = [_scored(COVERED, "x", 0.5, context="Seoul"), _scored(TRAP, "3 million won", 0.95)]
    assert aggregate(swapped)["quality_auroc"] == 0.0
    tied = [_scored(COVERED, "x", 0.7, context="Seoul"), _scored(COVERED, "x", 0.7, context="Busan")]
    assert aggregate(tied)["quality_auroc"] == 0.5
    # one class only, or no scores at all (naive): nothing to rank
    assert aggregate(there)["quality_auroc"] is None
    assert aggregate([score_run(COVERED, _run("naive", "Seoul")), score_run(TRAP, _run("naive", "x"))])[
        "quality_auroc"] is None
    # the label is the context, not the decision: a flagged run whose documents hold the fact is a positive
    flagged = _scored(COVERED, "Not found.", 0.3, context="Seoul", abstained=True)
    assert aggregate([flagged, missing[1]])["quality_auroc"] == 0.0


def test_quality_rows_sort_scored_runs_by_outcome():
    from rag.eval.tables import OUTCOMES, quality_rows

    rows = [_scored(COVERED, "x", 0.9, context="Seoul"), _scored(COVERED, "x", 0.7, context="Busan"),
            _scored(TRAP, "3 million won", 0.4), score_run(COVERED, _run("naive", "Seoul"))]
    charted = quality_rows({"questions": rows})
    assert [(r["quality"], r["outcome"], r["bin"]) for r in charted] == [
        (0.9, OUTCOMES[0], 0.9), (0.7, OUTCOMES[1], 0.7), (0.4, OUTCOMES[2], 0.4)]  # naive: no score, left out
