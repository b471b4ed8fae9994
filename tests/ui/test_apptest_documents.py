"""Documents page (AppTest): upload with progress and results, bad uploads refused, browse, delete, reset."""
from __future__ import annotations

import pytest

from rag_ui import uploads
from rag_ui.state import INGEST_RESULTS
from tests.ui.conftest import texts

GOOD = ("atlas_notes.md", "# Atlas\n\nAtlas는 한빛랩스의 사내 검색 서비스입니다. Atlas는 BM25와 벡터 검색을 RRF로 합칩니다.\n"
        "The Atlas team is led by Minjun Kim.\n" * 3, "text/markdown")


def metric(at, label: str) -> int:
    return int({m.label: m.value for m in at.metric}[label])


def upload(at, files):
    at.file_uploader[0].set_value([(n, d if isinstance(d, bytes) else d.encode(), t) for n, d, t in files])
    at.run()
    at.button(key="ingest").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_upload_browse_delete_and_reset(open_app):
    at = open_app("app_pages/documents.py")
    assert "No documents yet" in texts(at)
    upload(at, [GOOD])
    rows = at.session_state[INGEST_RESULTS]
    assert [(r["file"], r["status"]) for r in rows] == [("atlas_notes.md", "added")]
    assert rows[0]["chunks"] >= 1
    assert [e.proto.text for e in at.get("progress")] == ["atlas_notes.md: added"]  # one bar per file
    assert metric(at, "Documents · 문서") == 1
    documents = [d.value for d in at.dataframe if "doc id" in d.value.columns]
    assert list(documents[0]["file"]) == ["atlas_notes.md"]
    assert any("chunk 0" in e.label for e in at.expander)  # browse chunks

    # delete asks first, then deletes
    at.button(key="delete").click().run()
    assert "with its chunks, vectors and graph facts" in texts(at)
    assert metric(at, "Documents · 문서") == 1
    at.button(key="delete_yes").click().run()
    assert metric(at, "Documents · 문서") == 0

    # reset is disabled until confirmed, then empties the knowledge base
    upload(at, [GOOD])
    assert metric(at, "Documents · 문서") == 1
    assert at.button(key="reset").disabled
    at.checkbox(key="reset_sure").check().run()
    at.button(key="reset").click().run()
    assert not at.exception
    assert metric(at, "Documents · 문서") == 0
    assert "Reset done" in texts(at)


@pytest.mark.parametrize("name, data, words", [
    ("empty.txt", b"", "empty"),
    ("blob.txt", bytes(range(256)) * 40, "text"),
    ("program.exe", b"MZ\x90\x00" * 100, ".exe"),
])
def test_bad_upload_says_why_and_changes_nothing(open_app, name, data, words):
    at = open_app("app_pages/documents.py")
    upload(at, [GOOD])
    before = {m.label: m.value for m in at.metric}
    upload(at, [(name, data, "application/octet-stream")])
    rows = at.session_state[INGEST_RESULTS]
    assert rows[0]["status"] == "error" and rows[0]["error"]
    assert words.lower() in rows[0]["error"].lower(), rows[0]["error"]
    assert at.error and name in at.error[0].value and "nothing of these files was written" in at.error[0].value
    assert f"{name}: {name}" not in at.error[0].value and not rows[0]["error"].startswith(f"{name}:")  # named once
    bar = at.get("progress")[0].proto.text
    assert bar.startswith(f"{name}: error — ") and rows[0]["error"] in bar  # the bar says why, too
    assert {m.label: m.value for m in at.metric} == before


def test_oversized_upload_is_refused_before_ingest(open_app, monkeypatch):
    monkeypatch.setattr(uploads, "MAX_UPLOAD_MB", 0.001)  # ~1 KB
    at = open_app("app_pages/documents.py")
    upload(at, [("big.txt", "가나다 abc " * 400, "text/plain")])
    rows = at.session_state[INGEST_RESULTS]
    assert rows[0]["status"] == "error" and "limit" in rows[0]["error"]
    assert metric(at, "Documents · 문서") == 0


def test_upload_limit_matches_the_server_limit():
    import tomllib

    from tests.ui.conftest import REPO

    config = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == uploads.MAX_UPLOAD_MB
