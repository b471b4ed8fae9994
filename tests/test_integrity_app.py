"""Issue 9 in the app (AppTest on the Documents page): two uploads of one name are both kept and shown under their
visible names; a document the CLI ingests into the app's data directory shows up, chunks included, without a
restart of the app."""
from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.support.cli import run_rag

REPO = Path(__file__).resolve().parents[1]
REPORT_A = "# Report\n\nThe Orion-3 model was developed by Helix Labs."
REPORT_B = "# Report\n\nThe Vega-2 model was developed by Nova Works."


def documents_page() -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180)
    at.switch_page("app_pages/documents.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def upload(at: AppTest, name: str, text: str) -> None:
    at.file_uploader[0].set_value([(name, text.encode(), "text/markdown")])
    at.run()
    at.button(key="ingest").click().run()
    assert not at.exception, [e.value for e in at.exception]


def listed(at: AppTest) -> list[str]:
    tables = [d.value for d in at.dataframe if "doc id" in d.value.columns]
    return list(tables[0]["file"]) if tables else []


def test_two_uploads_named_report_md_are_listed_under_their_own_names(data_dir):
    at = documents_page()
    upload(at, "report.md", REPORT_A)
    upload(at, "report.md", REPORT_B)
    assert listed(at) == ["report.md", "report.md (2)"]
    assert any("added beside it as report.md (2)" in str(i.value) for i in at.info)
    upload(at, "report.md", REPORT_B)  # the same bytes again
    assert any("duplicate" in str(i.value) and "not stored twice" in str(i.value) for i in at.info)
    assert listed(at) == ["report.md", "report.md (2)"]


def test_a_cli_ingest_into_the_apps_data_dir_shows_up_without_a_restart(tmp_path, data_dir):
    at = documents_page()
    upload(at, "report.md", REPORT_A)
    (tmp_path / "cli").mkdir()
    (tmp_path / "cli" / "quasar.md").write_text("The Quasar-9 telescope was built by Lyra Optics.", encoding="utf-8")
    assert run_rag(["ingest", str(tmp_path / "cli")], data_dir).returncode == 0
    at.run()
    assert listed(at) == ["report.md", "quasar.md"]
    at.selectbox(key="browse_doc").select_index(1).run()
    assert not at.exception
    assert any("chunk 0" in e.label for e in at.expander)
