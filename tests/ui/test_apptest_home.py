"""Home page (AppTest): what this is, backend status with how-to-enable, counts, and loading the samples."""
from __future__ import annotations

from rag_ui import resources
from rag_ui.state import INGEST_RESULTS
from tests.ui.conftest import texts


def test_empty_home_explains_and_shows_backends(open_app):
    at = open_app()  # the default page is Home
    assert "Agentic RAG" in at.title[0].value
    assert "knowledge base is empty" in texts(at)
    status = at.table[0].value.reset_index()
    assert {"component", "backend", "state", "how to enable"} <= set(status.columns)
    assert len(status) >= 4  # vector store, graph store, engine, embeddings, web search
    assert status["state"].str.contains("active").any()
    web = status[status["component"].str.contains("web", case=False)]
    assert not web.empty and "TAVILY_API_KEY" in " ".join(web["how to enable"])
    assert {m.label: m.value for m in at.metric}["Documents · 문서"] == "0"


def test_load_samples_button_ingests_every_sample(sample_home):
    path, at = sample_home  # the session's one real ingest: Home, click "Load the sample documents"
    assert not at.exception, [e.value for e in at.exception]
    assert at.before_counts["Documents · 문서"] == "0"
    metrics = {m.label: m.value for m in at.metric}
    tables = [p for p in resources.sample_doc_paths() if p.suffix == ".csv"]  # tables, not documents (rag.tables)
    assert int(metrics["Documents · 문서"]) == len(resources.sample_doc_paths()) - len(tables) >= 8
    assert int(metrics["Chunks · 청크"]) >= int(metrics["Documents · 문서"])
    assert int(metrics["Entities · 개체"]) > 0 and int(metrics["Relations · 관계"]) > 0
    rows = at.session_state[INGEST_RESULTS]
    assert {r["status"] for r in rows} == {"added"}, rows
    assert "Ingested" in texts(at)
    assert "knowledge base is empty" not in texts(at)


def test_loading_the_samples_again_says_they_are_unchanged(samples, open_app):
    at = open_app()
    at.button(key="load_samples").click().run()
    assert not at.exception
    n = len(resources.sample_doc_paths())
    assert {r["status"] for r in at.session_state[INGEST_RESULTS]} == {"unchanged"}
    # not "Ingested 11 of 11 files" when nothing was written
    assert f"Ingested 0 of {n} files ({n} unchanged: already in the knowledge base)." in texts(at)
