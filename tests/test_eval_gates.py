"""Gates of `rag eval` (--gate): parsing, checking against a report, and the exit status of a real evaluation."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from rag.eval.cli import EXIT_GATE_MISSED, cli_main
from rag.eval.gates import GateError, check_gates, parse_gate, parse_gates, summary_line
from rag.eval.metrics import aggregate

METRICS = list(aggregate([]).keys())
VARIANTS = ["naive", "agentic"]


def test_parse_fixed_threshold_with_short_metric_name():
    g = parse_gate("agentic.key_fact_hit>=0.85", METRICS, VARIANTS)
    assert (g.variant, g.metric, g.op, g.number, g.ref_metric) == ("agentic", "key_fact_hit_rate", ">=", 0.85, None)
    g = parse_gate(" routing <= .9 ", METRICS, VARIANTS)
    assert (g.variant, g.metric, g.op, g.number) == (None, "routing_accuracy", "<=", 0.9)
    assert parse_gate("agentic.wall_ms_p95<=2000", METRICS, VARIANTS).metric == "wall_ms_p95"


def test_parse_relative_gate():
    g = parse_gate("agentic.key_fact_hit >= naive.key_fact_hit + 0.15", METRICS, VARIANTS)
    assert (g.variant, g.ref_variant, g.ref_metric, g.offset) == ("agentic", "naive", "key_fact_hit_rate", 0.15)
    g = parse_gate("agentic.silent_failure<=naive.silent_failure-0.2", METRICS, VARIANTS)
    assert (g.ref_variant, g.offset, g.op) == ("naive", -0.2, "<=")


@pytest.mark.parametrize("text, message", [
    ("agentic.key_fact_hit>0.85", "cannot read gate"),
    ("agentic.key_fact_hit=0.85", "cannot read gate"),
    ("agentic.key_fact_hit>=", "cannot read gate"),
    ("agentic.no_such_metric>=1", "unknown metric 'no_such_metric'"),
    ("other.routing>=0.9", "variant 'other' is not evaluated"),
    ("relations.accuracy>=0.9", "unknown relation metric"),
    ("agentic.routing>=relations.precision", "compare relation metrics with relation metrics only"),
])
def test_parse_rejects_with_a_plain_message(text, message):
    with pytest.raises(GateError, match=message):
        parse_gate(text, METRICS, VARIANTS)


def test_parse_gates_reports_every_bad_gate_at_once():
    with pytest.raises(GateError) as exc:
        parse_gates(["routing>=0.9", "bogus", "agentic.nope<=1"], METRICS, VARIANTS)
    assert "'bogus'" in str(exc.value) and "'nope'" in str(exc.value)


REPORT = {"variants": {"naive": {"key_fact_hit_rate": 0.70, "routing_accuracy": 0.4, "abstention_rate": None},
                       "agentic": {"key_fact_hit_rate": 0.85, "routing_accuracy": 0.95, "abstention_rate": 1.0}},
          "relations": {"precision": 0.8, "recall": 0.5}}


def _check(*texts: str, report=REPORT):
    return check_gates(parse_gates(texts, METRICS, VARIANTS), report)


def test_check_fixed_and_relative_gates():
    ok, miss = _check("agentic.key_fact_hit>=0.85", "agentic.key_fact_hit>=naive.key_fact_hit+0.20")
    assert ok.passed and ok.value == 0.85  # equal passes (>=), despite float noise
    assert not miss.passed and miss.threshold == pytest.approx(0.90)
    assert "MISS" in miss.line and "naive.key_fact_hit_rate + 0.2" in miss.line and "0.900" in miss.line


def test_gate_without_variant_applies_to_each_variant():
    results = _check("routing>=0.9")
    assert [(r.variant, r.passed) for r in results] == [("naive", False), ("agentic", True)]
    assert summary_line(results) == "gates: 1 of 2 MISSED: routing>=0.9 [naive]"


def test_null_metric_misses_and_says_why():
    (r,) = _check("naive.abstention>=0.5")
    assert not r.passed and r.value is None and "not measured" in r.line


def test_relation_gates_read_the_relations_block():
    p, r = _check("relations.precision>=0.75", "relations.recall>=0.75")
    assert p.passed and not r.passed
    assert summary_line([p]) == "gates: all 1 passed"


# ---- exit status of a real evaluation (fresh knowledge base, one small document, offline engine) --------------------
DOC = """# Harbor Bakery

Harbor Bakery opens at 7 am every day. Its sourdough loaf costs 6,500 won.
"""
QUESTIONS = [
    {"id": "q1", "question": "What time does Harbor Bakery open?", "expected_route": "vector", "kind": "covered",
     "expected": [["7 am"]], "relevant_sources": ["bakery.md"], "tags": ["hours", "en->en"]},
    {"id": "q2", "question": "How much is the sourdough loaf at Harbor Bakery?", "expected_route": "vector",
     "kind": "covered", "expected": [["6,500"]], "relevant_sources": ["bakery.md"], "tags": ["en->en"]},
]


@pytest.fixture()
def tiny_set(tmp_path) -> tuple[Path, Path]:
    docs = tmp_path / "corpus"
    docs.mkdir()
    (docs / "bakery.md").write_text(DOC, encoding="utf-8")
    qfile = tmp_path / "questions.jsonl"
    qfile.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    return docs, qfile


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli_main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.integration
def test_exit_status_follows_the_gates(tiny_set, tmp_path):
    docs, qfile = tiny_set
    kept = tmp_path / "kept-kb"
    # naive always takes the vector route, which both questions expect: routing accuracy is exactly 1.0
    code, out, err = _cli(str(qfile), "--variants", "naive", "--fresh-kb", "--data-dir", str(kept),
                          "--ingest", str(docs), "--gate", "naive.routing>=1.0", "--gate", "naive.n_errors<=0")
    assert code == 0, err
    assert "gate ok    naive.routing_accuracy = 1.000 >= 1" in out and "gates: all 2 passed" in out
    assert "by tag (hit = key facts on covered" in out
    assert (kept / "runs.sqlite3").exists()  # a --data-dir given to --fresh-kb is kept

    code, out, err = _cli(str(qfile), "--variants", "naive", "--fresh-kb", "--ingest", str(docs), "--json",
                          "--gate", "naive.routing<=0.5")
    assert code == EXIT_GATE_MISSED
    report = json.loads(out)  # stdout stays one JSON object; the gate lines go to stderr
    assert report["gates"][0]["passed"] is False and report["gates"][0]["value"] == 1.0
    assert "gate MISS  naive.routing_accuracy = 1.000 <= 0.5" in err and "gates: 1 of 1 MISSED" in err
    # tagged questions get a per-tag breakdown, each tag over its own questions
    assert list(report["by_tag"]) == ["hours", "en->en"]
    assert (report["by_tag"]["hours"]["n"], report["by_tag"]["en->en"]["n"]) == (1, 2)
    assert report["by_tag"]["en->en"]["naive"]["routing_accuracy"] == 1.0
    hit_q1 = next(r["hit"] for r in report["questions"] if r["id"] == "q1")
    assert report["by_tag"]["hours"]["naive"]["key_fact_hit_rate"] == (1.0 if hit_q1 else 0.0)
    fresh = [line.split()[4] for line in err.splitlines() if line.startswith("fresh knowledge base in")]
    assert fresh and not Path(fresh[0]).exists()  # the temporary data dir is removed afterwards


def test_bad_gate_or_missing_ingest_exit_2_before_any_work(tiny_set, tmp_path):
    docs, qfile = tiny_set
    code, _, err = _cli(str(qfile), "--gate", "agentic.key_fact_hit>0.85")
    assert code == 2 and "cannot read gate" in err
    code, _, err = _cli(str(qfile), "--variants", "naive", "--gate", "agentic.routing>=0.9")
    assert code == 2 and "variant 'agentic' is not evaluated" in err
    code, _, err = _cli(str(qfile), "--fresh-kb")
    assert code == 2 and "add --ingest" in err
    code, _, err = _cli(str(qfile), "--gate", "relations.recall>=0.5")
    assert code == 2 and "needs --relations" in err
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    code, _, err = _cli(str(qfile), "--fresh-kb", "--ingest", str(docs), "--data-dir", str(tmp_path / "full"))
    assert code == 2 and "is not empty" in err


def test_question_kind_is_a_tag_of_the_breakdown():
    """Seed 002's kinds (sample_docs' table questions carry question_kind) show in the per-tag table."""
    from rag.eval.breakdown import question_tags
    from rag.eval.questions import parse_questions

    qs = parse_questions([
        '{"id": "a", "question": "How many incidents in 2024?", "kind": "covered", "question_kind": "aggregate"}',
        '{"id": "b", "question": "Who leads X?", "kind": "covered", "tags": ["en->en"]}',
        '{"id": "c", "question": "Hi", "kind": "direct"}',
    ])
    assert question_tags(qs) == {"a": ["kind:aggregate"], "b": ["en->en"]}
