"""Issue 9, case 1: documents with the same file name never replace each other; the same bytes twice is one document.

Before: `ingest teamA/` then `ingest teamB/` (each with its own notes.md) gave "added" then "replaced" and team A's
facts were gone; two uploads named report.md did the same; the same bytes under two paths were "unchanged" without
saying which document they duplicated.
"""
from __future__ import annotations

import json

import pytest

from rag.kb import KnowledgeBase
from tests.support.cli import run_rag
from tests.support.kb import make_settings

TEAM_A = "The Orion-3 model was developed by Helix Labs. Helix Labs is headquartered in Busan."
TEAM_B = "The Vega-2 model was developed by Nova Works. Nova Works is headquartered in Ulsan."
LEAVE = "Employees get 15 days of annual leave. Unused leave expires after two years."


@pytest.fixture
def kb(tmp_path):
    kb = KnowledgeBase(make_settings(tmp_path / "kb"))
    yield kb
    kb.close()


def graph_triples(kb: KnowledgeBase) -> set[tuple[str, str, str]]:
    data = json.loads((kb.settings.data_dir / "graph.json").read_text(encoding="utf-8"))
    return {(r["source"], r["predicate"], r["target"]) for r in data["relations"]}


def test_two_folders_with_a_notes_md_each_keep_both_documents_and_their_facts(tmp_path, data_dir):
    for team, text in (("teamA", TEAM_A), ("teamB", TEAM_B)):
        (tmp_path / team).mkdir()
        (tmp_path / team / "notes.md").write_text(text, encoding="utf-8")
    first = run_rag(["ingest", str(tmp_path / "teamA")], data_dir)
    second = run_rag(["ingest", str(tmp_path / "teamB")], data_dir)
    assert first.returncode == 0 and first.stdout.startswith("added"), first.stdout + first.stderr
    assert second.returncode == 0, second.stdout + second.stderr
    line = second.stdout.splitlines()[0]
    assert line.startswith("added") and "teamB/notes.md" in line, second.stdout
    assert "a different document named notes.md is already in the knowledge base" in second.stdout
    with KnowledgeBase(make_settings(data_dir)) as kb:
        assert sorted(d.source for d in kb.documents()) == ["notes.md", "teamB/notes.md"]
        triples = graph_triples(kb)
        assert ("Orion-3", "developed_by", "Helix Labs") in triples  # team A's facts are still there
        assert ("Vega-2", "developed_by", "Nova Works") in triples
        hits = {r.source for r in kb.tools()["vector"].run("Who developed Orion-3?", 2)}
        assert "notes.md" in hits


def test_two_uploads_named_report_md_are_both_kept(kb):
    a = kb.ingest_bytes("report.md", TEAM_A.encode())
    b = kb.ingest_bytes("report.md", TEAM_B.encode())
    assert (a.status, a.source) == ("added", "report.md")
    assert (b.status, b.source) == ("added", "report.md (2)") and "report.md (2)" in b.note
    assert {d.source: d.doc_id for d in kb.documents()} == {"report.md": a.doc_id, "report.md (2)": b.doc_id}
    assert [c.source for c in kb.chunks(b.doc_id)] == ["report.md (2)"]  # the visible name is on its chunks too
    relations = [rel for rel, _ in kb.graph.expand(["Nova Works"], hops=1)]
    assert relations and {r.source_file for r in relations} == {"report.md (2)"}
    # the same second upload again is unchanged content: a duplicate of "report.md (2)", not a third copy
    again = kb.ingest_bytes("report.md", TEAM_B.encode())
    assert again.status == "duplicate" and "report.md (2)" in again.note and len(kb.documents()) == 2


def test_an_upload_replaces_a_document_of_its_name_only_when_asked(kb):
    old = kb.ingest_bytes("report.md", TEAM_A.encode())
    new = kb.ingest_bytes("report.md", TEAM_B.encode(), replace=True)
    assert new.status == "replaced" and "as asked" in new.note
    assert [d.doc_id for d in kb.documents()] == [new.doc_id]
    assert kb.chunks(old.doc_id) == [] and ("Orion-3", "developed_by", "Helix Labs") not in graph_triples(kb)


def test_the_same_bytes_under_another_path_are_a_duplicate(kb, tmp_path):
    (tmp_path / "docs" / "policies").mkdir(parents=True)
    (tmp_path / "docs" / "policies" / "leave.md").write_text(LEAVE, encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "leave.md").write_text(LEAVE, encoding="utf-8")
    [first] = kb.ingest_paths([tmp_path / "docs"])
    [second] = kb.ingest_paths([tmp_path / "elsewhere" / "leave.md"])
    assert (first.status, first.source) == ("added", "policies/leave.md")
    assert second.status == "duplicate" and second.doc_id == first.doc_id
    assert "same content as policies/leave.md" in second.note
    assert [d.source for d in kb.documents()] == ["policies/leave.md"]
    assert kb.counts()["chunks"] == first.n_chunks  # stored once, so answers cite one version
    # the same file again, by the same path: unchanged (not a duplicate of itself)
    assert kb.ingest_paths([tmp_path / "docs"])[0].status == "unchanged"
    # the summary line of Home and Documents counts the duplicate instead of leaving it out
    from rag_ui.widgets import ingest_rows, ingest_summary

    assert ingest_summary(ingest_rows([first, second])) == (
        "Ingested 1 of 2 files (1 duplicate: the same bytes are already in the knowledge base under another name).")


def test_a_changed_file_at_the_same_path_is_an_update_that_says_so(kb, tmp_path):
    path = tmp_path / "notes.md"
    path.write_text(TEAM_A, encoding="utf-8")
    old = kb.ingest_paths([path])[0]
    path.write_text(TEAM_B, encoding="utf-8")
    new = kb.ingest_paths([path])[0]
    assert new.status == "replaced" and str(path) in new.note and "replaced the previous one" in new.note
    assert [(d.source, d.doc_id) for d in kb.documents()] == [("notes.md", new.doc_id)]
    assert kb.chunks(old.doc_id) == [] and ("Orion-3", "developed_by", "Helix Labs") not in graph_triples(kb)
    # another file called notes.md (another path) is not an update of this one
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.md").write_text(TEAM_A, encoding="utf-8")
    added = kb.ingest_paths([other / "notes.md"])[0]
    assert (added.status, added.source) == ("added", "other/notes.md")
    assert len(kb.documents()) == 2
