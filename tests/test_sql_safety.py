"""The sql tool refuses unsafe queries before anything runs, with a clear reason (rag/tools/sql.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from rag.config import Settings
from rag.tools.sql import SqlRefused, SqlTool

TABLES = Path(__file__).resolve().parents[1] / "sample_docs" / "tables"
H = '"인원(headcount)"'


@pytest.fixture()
def tool(tmp_path) -> SqlTool:
    settings = Settings.from_env(data_dir_override=tmp_path / "data", sql_row_limit=3)
    tool = SqlTool(None, settings)  # no knowledge base: names are matched as text only
    for path in sorted(TABLES.glob("*.csv")):
        assert tool.store.register(path.name, path.read_bytes()).status == "added"
    return tool


@pytest.mark.parametrize("sql,reason", [
    ("DROP TABLE headcount_by_team", "DROP is not a SELECT"),
    ("CREATE TABLE x AS SELECT * FROM headcount_by_team", "CREATE is not a SELECT"),
    ("INSERT INTO headcount_by_team VALUES ('X', 1, 1, 1, '2024-12')", "INSERT is not a SELECT"),
    (f"UPDATE headcount_by_team SET {H} = 0", "UPDATE is not a SELECT"),
    ("DELETE FROM headcount_by_team", "DELETE is not a SELECT"),
    ("SELECT * INTO copy FROM headcount_by_team", "INTO inside the query"),
    ("SELECT * FROM headcount_by_team; DROP TABLE headcount_by_team", "2 statements"),
    ("SELECT 1; SELECT 2", "2 statements"),
    ("SELECT * FROM salaries", "unknown table 'salaries'"),
    ("SELECT * FROM rag_table_manifest", "unknown table 'rag_table_manifest'"),
    ("SELECT password FROM headcount_by_team", "unknown column 'password'"),
    ("SELECT * FROM main.headcount_by_team", "names a schema or database"),
    ("SELECT * FROM headcount_by_team -- ; DROP TABLE headcount_by_team", "comments are not allowed"),
    ("SELECT * FROM headcount_by_team /* hidden */ WHERE 1=1", "comments are not allowed"),
    ("SELECT/**/1", "comments are not allowed"),
    ("ATTACH 'other.duckdb' AS other", "ATTACH is not a SELECT"),
    ("DETACH other", "not a SELECT"),
    ("COPY headcount_by_team TO 'out.csv'", "COPY is not a SELECT"),
    ("PRAGMA database_list", "PRAGMA is not a SELECT"),
    ("SET enable_external_access = true", "SET is not a SELECT"),
    ("SELECT * FROM read_csv('/etc/passwd')", "read_csv() reads outside"),
    ("SELECT * FROM read_csv_auto('/etc/passwd')", "read_csv_auto() reads outside"),
    ("SELECT * FROM read_parquet('x.parquet')", "reads outside"),
    ("SELECT * FROM glob('*')", "glob() reads outside"),
    ("SELECT getenv('HOME')", "getenv() reads outside"),
    ("", "the query is empty"),
])
def test_unsafe_queries_are_refused_before_execution(tool, sql, reason):
    before = [(t.name, t.n_rows) for t in tool.tables()]
    with pytest.raises(SqlRefused) as refused:
        tool.execute("팀별 인원", sql, "given", "")
    assert reason in str(refused.value), str(refused.value)
    assert [(t.name, t.n_rows) for t in tool.tables()] == before
    assert tool.store.preview("headcount_by_team")[1][0][:2] == ("Search Platform Team", 42)


def test_a_refused_query_reaches_the_trace_as_a_failed_attempt_with_the_reason(tool):
    """The variant records the refusal: ``retrieve_with`` turns it into a failed outcome, never a silent switch."""
    from rag.variants.react import run_sql_hop

    hop = run_sql_hop({"sql": tool}, None, "팀별 인원", "팀별 인원", 4, given_sql="DROP TABLE headcount_by_team")
    assert hop.status == "failed" and "DROP is not a SELECT" in hop.note
    assert hop.details["sql"] == "DROP TABLE headcount_by_team" and hop.details["refused"]


def test_row_limit_is_enforced_and_said(tool):
    result = tool.execute("incidents by month", "SELECT * FROM incidents_by_month", "given", "")
    assert len(result.rows) == 3 and result.sql.endswith("LIMIT 3")
    assert "row limit 3 enforced" in result.notes


def test_time_limit_interrupts_a_long_query(tmp_path):
    settings = Settings.from_env(data_dir_override=tmp_path / "slow", sql_timeout_s=0.3)
    tool = SqlTool(None, settings)
    rows = "n\n" + "".join(f"{i}\n" for i in range(5000))
    assert tool.store.register("numbers.csv", rows.encode()).status == "added"
    with pytest.raises(SqlRefused, match="ran longer than 0.3 s"):
        tool.execute("numbers", "SELECT COUNT(*) FROM numbers a, numbers b, numbers c WHERE a.n + b.n > c.n",
                     "given", "")


def test_the_query_connection_is_read_only_even_past_the_validator(tool):
    """Defence in depth: the connection itself refuses writes and file access."""
    import duckdb

    with tool.store.read_only_connection() as conn:
        with pytest.raises(duckdb.Error):
            conn.execute("CREATE TABLE x (a INT)")
        with pytest.raises(duckdb.Error):
            conn.execute("SELECT * FROM read_csv('/etc/hostname')").fetchall()
        with pytest.raises(duckdb.Error):
            conn.execute("SET enable_external_access = true")
