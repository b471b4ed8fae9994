"""The Documents page shows the tables: columns, types, row count and a preview (rag_ui/tables.py), and deletes one."""
from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from rag.config import Settings
from rag.kb import KnowledgeBase

REPO = Path(__file__).resolve().parents[1]


def frame(at, *columns):
    """The dataframe on the page whose columns start with ``columns``."""
    return next(d.value for d in at.dataframe if list(d.value.columns)[: len(columns)] == list(columns))


def test_documents_page_shows_schema_row_count_and_preview_of_each_table(data_dir):
    kb = KnowledgeBase(Settings.from_env())
    for path in sorted((REPO / "sample_docs" / "tables").glob("*.csv")):
        assert kb.ingest_bytes(path.name, path.read_bytes()).status == "added"
    kb.close()
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180)
    at.run()
    at.switch_page("app_pages/documents.py").run()
    assert not at.exception
    assert "Tables · 표" in [s.value for s in at.subheader]
    listed = frame(at, "table", "file")
    assert list(listed["table"]) == ["budget_by_product", "headcount_by_team", "incidents_by_month"]
    assert list(listed["rows"]) == [6, 4, 36]
    at.selectbox(key="browse_table").set_value("headcount_by_team").run()
    schema = frame(at, "column", "type")
    assert list(schema["column"])[:2] == ["팀(team)", "인원(headcount)"] and list(schema["type"])[:2] == ["VARCHAR",
                                                                                                      "BIGINT"]
    preview = frame(at, "팀(team)")
    assert preview.iloc[0]["인원(headcount)"] == 42 and len(preview) == 4
    at.button(key="delete_table").click().run()
    assert not at.exception
    assert list(frame(at, "table", "file")["table"]) == ["budget_by_product", "incidents_by_month"]
