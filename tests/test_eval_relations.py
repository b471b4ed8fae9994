"""Relation precision/recall against hand-labelled relations (rag.eval.relations) and its place in `rag eval`."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from rag.eval.cli import cli_main
from rag.eval.relations import (RelationSetError, format_relations, graph_relations, load_relation_labels,
                                parse_relation_labels, score_relations)
from rag.graphstore.embedded import EmbeddedGraphStore
from rag.types import Entity, Relation

REPO = Path(__file__).resolve().parents[1]

LABELS = [
    {"source": "staff.md",
     "relations": [
         {"subject": ["Hyunwoo Seo", "서현우"], "relation": "leads", "object": "Digital Collections Team"},
         {"subject": "Yuna Lim", "relation": "belongs_to", "object": "Digital Collections Team"},
         {"subject": "Archive One", "relation": "*", "object": "Digital Collections Team"},
         {"subject": "Circulation Team", "relation": "owns", "object": ["kiosks"], "optional": True}],
     "not_relations": [{"a": "Hyunwoo Seo", "b": ["Jimin Han", "한지민"], "why": "presented together"}]},
    {"source": "empty.md", "relations": [], "not_relations": []},
]


def _rel(s: str, p: str, t: str, source_file: str = "staff.md") -> Relation:
    return Relation(source=s, predicate=p, target=t, evidence=f"{s} {p} {t}.", doc_id="d-" + source_file,
                    chunk_id="c-" + source_file, source_file=source_file)


def _labels():
    return parse_relation_labels("\n".join(json.dumps(x, ensure_ascii=False) for x in LABELS))


def test_precision_recall_and_cooccurrence_violations():
    extracted = [
        _rel("서현우", "leads", "digital  collections team"),  # an alias, other case and spacing: correct
        _rel("Yuna Lim", "leads", "Digital Collections Team"),  # wrong type: wrong, and the label stays missed
        _rel("Digital Collections Team", "developed_by", "Archive One"),  # "*": any type, either direction
        _rel("Circulation Team", "owns", "Kiosks"),  # optional: correct, not required for recall
        _rel("Hyunwoo Seo", "related_to", "Jimin Han"),  # a co-occurrence made a relation: wrong + violation
        _rel("Hyunwoo Seo", "also_known_as", "서현우"),  # aliases are not scored
        _rel("Somebody", "leads", "Something", source_file="unlabelled.md"),  # unlabelled document: ignored
        _rel("서현우", "leads", "Digital Collections Team"),  # the same fact again from another chunk: counted once
    ]
    r = score_relations(_labels(), extracted)
    assert (r["extracted"], r["correct"], r["labelled"], r["found"]) == (5, 3, 3, 2)
    assert r["precision"] == 0.6 and r["recall"] == pytest.approx(0.6667, abs=1e-4)
    assert r["f1"] == pytest.approx(2 * 0.6 * 0.6667 / (0.6 + 0.6667), abs=1e-3)
    assert (r["not_relations"], r["cooccurrence_violations"]) == (1, 1)
    assert {w["relation"] for w in r["wrong"]} == {"Yuna Lim —leads→ Digital Collections Team",
                                                   "Hyunwoo Seo —related_to→ Jimin Han"}
    assert [m["relation"] for m in r["missed"]] == ["Yuna Lim —belongs_to→ Digital Collections Team"]
    text = format_relations(r)
    assert "precision 0.600 (3 of 5 extracted are labelled)" in text and "recall 0.667 (2 of 3" in text
    assert "co-occurrences made relations: 1 of 1" in text


def test_direction_matters_for_a_typed_label():
    r = score_relations(_labels(), [_rel("Digital Collections Team", "leads", "Hyunwoo Seo")])
    assert (r["correct"], r["found"], r["precision"]) == (0, 0, 0.0)


def test_nothing_extracted_gives_null_precision_and_zero_recall():
    r = score_relations(_labels(), [])
    assert r["precision"] is None and r["recall"] == 0.0 and r["f1"] is None


def test_bad_label_lines_are_all_reported():
    with pytest.raises(RelationSetError) as exc:
        parse_relation_labels('{"relations": []}\nnot json\n'
                              '{"source": "a.md", "relations": [{"subject": "X", "object": "Y"}]}')
    msg = str(exc.value)
    assert "3 bad line(s)" in msg and "line 1" in msg and "line 2: not valid JSON" in msg and "relations[0]" in msg


def test_the_unseen_corpus_labels_load_and_name_existing_files():
    folder = REPO / "eval_sets" / "unseen_culture_foundation"
    labels = load_relation_labels(folder / "relations.jsonl")
    assert len(labels) >= 5 and sum(len(d.relations) for d in labels) >= 20
    assert all((folder / d.source).is_file() for d in labels)


def test_graph_relations_reads_every_relation_of_a_real_store(tmp_path):
    store = EmbeddedGraphStore(tmp_path / "graph.json")
    rels = [_rel("Hyunwoo Seo", "leads", "Digital Collections Team"),
            _rel("Yuna Lim", "belongs_to", "Digital Collections Team"),
            _rel("Archive One", "developed_by", "Digital Collections Team", source_file="systems.md")]
    names = {n for r in rels for n in (r.source, r.target)}
    store.upsert("d1", [Entity(n) for n in names], rels)
    got = graph_relations(store)
    assert sorted((r.source, r.predicate, r.target, r.source_file) for r in got) == sorted(
        (r.source, r.predicate, r.target, r.source_file) for r in rels)


@pytest.mark.integration
def test_eval_prints_relation_figures_from_the_ingested_graph(tmp_path):
    docs = tmp_path / "corpus"
    docs.mkdir()
    (docs / "staff.md").write_text("# Staff\n\nHyunwoo Seo leads the Digital Collections Team.\n"
                                   "Yuna Lim belongs to the Digital Collections Team.\n", encoding="utf-8")
    qfile = tmp_path / "q.jsonl"
    qfile.write_text(json.dumps({"id": "q1", "question": "Who leads the Digital Collections Team?",
                                 "expected_route": "graph", "expected": [["Hyunwoo Seo"]]}) + "\n", encoding="utf-8")
    labels = tmp_path / "relations.jsonl"
    labels.write_text("\n".join(json.dumps(x) for x in LABELS), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = cli_main([str(qfile), "--variants", "naive", "--fresh-kb", "--ingest", str(docs), "--relations",
                     str(labels), "--json", "--gate", "relations.cooccurrence_violations<=0"], out=out, err=err)
    report = json.loads(out.getvalue())
    rel = report["relations"]
    assert rel["labelled"] == 3 and rel["documents"] == 2
    assert rel["extracted"] >= rel["correct"] and rel["found"] <= rel["labelled"]
    assert rel["precision"] == (None if rel["extracted"] == 0 else round(rel["correct"] / rel["extracted"], 4))
    # the two sentences are plain "X leads / belongs to Y": whatever the extractor, no co-occurrence pair is in them
    assert rel["cooccurrence_violations"] == 0 and code == 0, err.getvalue()
