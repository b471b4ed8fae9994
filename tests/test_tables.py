"""Tables as documents (rag/tables.py): the sample CSVs load with their schema; a bad table changes nothing."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rag.config import Settings
from rag.tables import TableStore, parse_table_file, table_name

TABLES = Path(__file__).resolve().parents[1] / "sample_docs" / "tables"


@pytest.fixture()
def store(tmp_path) -> TableStore:
    return TableStore(tmp_path / "data", max_rows=1000)


def test_sample_tables_load_with_columns_types_and_rows(store):
    for path in sorted(TABLES.glob("*.csv")):
        result = store.register(path.name, path.read_bytes())
        assert result.status == "added", result.error
    names = {t.name: t for t in store.list()}
    assert set(names) == {"headcount_by_team", "incidents_by_month", "budget_by_product"}
    head = names["headcount_by_team"]
    assert [(c.name, c.type) for c in head.columns][:2] == [("팀(team)", "VARCHAR"), ("인원(headcount)", "BIGINT")]
    assert head.n_rows == 4 and head.source == "headcount_by_team.csv" and head.encoding == "utf-8"
    assert names["incidents_by_month"].n_rows == 36
    columns, rows = store.preview("budget_by_product", 2)
    assert columns[0] == "제품(product)" and rows[0] == ("Atlas", "Search Platform Team", 2023, 1850)
    # the same file again changes nothing; a changed file under the same name replaces its table
    again = store.register("headcount_by_team.csv", (TABLES / "headcount_by_team.csv").read_bytes())
    assert again.status == "unchanged"
    changed = store.register("headcount_by_team.csv", "팀(team),인원(headcount)\nA,1\n".encode())
    assert changed.status == "replaced" and store.schema("headcount_by_team").n_rows == 1
    assert store.delete("headcount_by_team.csv") and store.schema("headcount_by_team") is None
    store.reset()
    assert store.list() == []


@pytest.mark.parametrize("name,data,words", [
    ("ragged.csv", "a,b,c\n1,2,3\n4,5\n", ["row 3", "2 field", "header has 3", "ragged"]),
    ("noheader.csv", "1,2,3\n4,5,6\n", ["no header row"]),
    ("blankname.csv", "a,,c\n1,2,3\n", ["column 2", "no name"]),
    ("twice.csv", "a,A\n1,2\n", ["twice"]),
    ("empty.csv", "\n\n", ["empty"]),
    ("headonly.csv", "a,b\n", ["no data rows"]),
    ("latin.csv", b"name,city\n\xff\xfe\xfd,\x80\x81\n", ["neither UTF-8 nor CP949"]),
    ("big.csv", "n\n" + "".join(f"{i}\n" for i in range(1001)), ["more than 1,000 rows", "RAG_TABLE_MAX_ROWS"]),
])
def test_a_bad_table_is_refused_with_the_reason_and_nothing_changes(store, name, data, words):
    store.register("keep.csv", "x,y\n1,2\n".encode())
    before = store.list()
    result = store.register(name, data if isinstance(data, bytes) else data.encode())
    assert result.status == "error"
    for word in words:
        assert word in result.error, result.error
    assert store.list() == before
    assert store.schema(table_name(name)) is None


def test_cp949_is_detected_and_loaded(store):
    data = "팀,인원\n검색팀,3\n연구소,2\n".encode("cp949")
    result = store.register("korean_excel.csv", data)
    assert result.status == "added" and "CP949" in result.note
    info = store.schema("korean_excel")
    assert info.encoding == "cp949" and [c.name for c in info.columns] == ["팀", "인원"]
    assert store.preview("korean_excel")[1] == [("검색팀", 3), ("연구소", 2)]


def test_xlsx_first_sheet_becomes_a_table(store, tmp_path):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    for row in (["제품", "연도", "예산"], ["Atlas", 2024, 2100.5], ["Nuri", 2024, 1750]):
        sheet.append(row)
    path = tmp_path / "budget.xlsx"
    book.save(path)
    result = store.register("budget.xlsx", path.read_bytes())
    assert result.status == "added", result.error
    info = store.schema("budget")
    assert [(c.name, c.type) for c in info.columns] == [("제품", "VARCHAR"), ("연도", "BIGINT"), ("예산", "DOUBLE")]


def test_sqlite_file_is_read_only_and_each_table_is_loaded(store, tmp_path):
    path = tmp_path / "ops.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE teams (name TEXT, size INTEGER)")
        conn.execute("INSERT INTO teams VALUES ('A', 3), ('B', 5)")
        conn.execute("CREATE TABLE months (month TEXT, incidents INTEGER)")
        conn.execute("INSERT INTO months VALUES ('2024-01', 2)")
    data = path.read_bytes()
    result = store.register("ops.sqlite", data)
    assert result.status == "added", result.error
    assert sorted(t.name for t in result.tables) == ["ops__months", "ops__teams"]
    assert store.preview("ops__teams")[1] == [("A", 3), ("B", 5)]
    assert path.read_bytes() == data  # the uploaded database was only read
    assert store.register("fake.sqlite", b"not a database").status == "error"


def test_parse_refuses_a_non_table_extension():
    from rag.tables import TableError

    with pytest.raises(TableError, match="not a table format"):
        parse_table_file("notes.txt", b"a,b\n1,2\n", 10)


def test_knowledge_base_ingest_dispatches_table_files(tmp_path):
    from rag.kb import KnowledgeBase

    kb = KnowledgeBase(Settings.from_env(data_dir_override=tmp_path / "kb"))
    try:
        before = kb.revision()
        result = kb.ingest_bytes("incidents_by_month.csv", (TABLES / "incidents_by_month.csv").read_bytes())
        assert result.status == "added" and "incidents_by_month (36 rows)" in result.note
        assert kb.revision() > before  # a table is a change: other processes and the answer cache see it
        after_add = kb.revision()
        bad = kb.ingest_bytes("ragged.csv", b"a,b\n1\n")
        assert bad.status == "error" and "ragged" in bad.error
        assert kb.revision() == after_add  # a refused table changes nothing
        assert [t.name for t in kb.tables.list()] == ["incidents_by_month"]
        kb.ingest_bytes("budget_by_product.csv", (TABLES / "budget_by_product.csv").read_bytes())
        assert kb.delete_table("budget_by_product") is True and kb.revision() > after_add
        assert kb.delete_table("budget_by_product") is False
        kb.reset()
        assert kb.tables.list() == []
    finally:
        kb.close()
