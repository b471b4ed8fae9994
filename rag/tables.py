"""Tables as documents: .csv, .xlsx and .sqlite files become tables of an embedded DuckDB (``data_dir/tables.duckdb``).

One table per file (a .sqlite file with several tables gives one table each, named ``<file>__<table>``). A file is
checked completely before anything is written, and a bad one changes nothing; the message says what is wrong and
what to do:

- ragged rows (a row with more or fewer fields than the header), no header row (the first row is all numbers or
  has empty / repeated names), an empty file;
- an encoding other than UTF-8: CP949 / EUC-KR (common for Korean spreadsheets saved from Excel) is detected and
  loaded, and the table records which encoding it came in; anything else is refused with how to fix it;
- more rows than ``settings.table_max_rows``.

Column types are inferred from the values (BIGINT, DOUBLE, DATE, else VARCHAR); headers are kept as written
(Korean or English), so SQL over them quotes identifiers. DuckDB's file lock allows one writer per process at a
time: connections here are short-lived (open, work, close), and queries use a read-only connection with
external access switched off (``read_only_connection``), so even a query that got past the validator cannot read
files, attach databases or change a table.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import sqlite3
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path, PurePosixPath
from typing import Any, Iterator

from rag.trace import now_iso
from rag.types import IngestError, RagError

DB_FILE = "tables.duckdb"
MANIFEST = "rag_table_manifest"  # never a queryable table: the SQL validator only knows registered tables
TABLE_EXTENSIONS: tuple[str, ...] = (".csv", ".xlsx", ".sqlite", ".sqlite3")
PREVIEW_ROWS = 5
_LOCK_RETRY_S = 10.0
_INT = re.compile(r"^[+-]?\d{1,18}$")
_FLOAT = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class TableError(IngestError):
    """A table file was refused; nothing was written."""


def is_table_file(name: str) -> bool:
    return PurePosixPath(name.replace("\\", "/")).suffix.lower() in TABLE_EXTENSIONS


@dataclass
class TableColumn:
    name: str
    type: str  # BIGINT | DOUBLE | DATE | VARCHAR


@dataclass
class TableInfo:
    name: str  # SQL table name
    source: str  # file name it came from
    doc_id: str  # sha256 of the file's bytes (first 16 hex), like a document's id
    columns: list[TableColumn]
    n_rows: int
    encoding: str = "utf-8"  # utf-8 | cp949 | binary (xlsx, sqlite)
    ingested_at: str = ""

    def describe(self) -> str:
        """One line for prompts and traces: ``name(col TYPE, ...) — N rows, from file``."""
        cols = ", ".join(f'"{c.name}" {c.type}' for c in self.columns)
        return f"{self.name}({cols}) — {self.n_rows} rows, from {self.source}"


@dataclass
class TableResult:
    """What ingesting one table file did. ``status``: added | unchanged | replaced | error."""

    source: str
    doc_id: str
    status: str
    tables: list[TableInfo] = field(default_factory=list)
    error: str | None = None
    note: str | None = None


@dataclass
class ParsedTable:
    name: str
    columns: list[TableColumn]
    rows: list[list[Any]]
    encoding: str


# ---- parsing and checks (pure: nothing is written) -------------------------------------------------------------------

def table_name(source: str) -> str:
    """A SQL-safe table name from a file name: ``tables/Headcount by team.csv`` -> ``headcount_by_team``."""
    stem = PurePosixPath(source.replace("\\", "/")).stem.lower()
    name = re.sub(r"[^0-9a-z_]+", "_", stem).strip("_")
    if not name:  # e.g. a Korean-only file name
        name = "table_" + hashlib.sha1(stem.encode("utf-8")).hexdigest()[:8]
    if name[0].isdigit():
        name = "t_" + name
    return name


def decode_text(source: str, data: bytes) -> tuple[str, str]:
    """(text, encoding) of a CSV's bytes: UTF-8 (with or without BOM), else CP949; anything else is refused."""
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp949"), "cp949"
    except UnicodeDecodeError:
        raise TableError(f"{source} is neither UTF-8 nor CP949 (EUC-KR) text: save it as 'CSV UTF-8' and upload it "
                         "again.") from None


def parse_table_file(source: str, data: bytes, max_rows: int) -> list[ParsedTable]:
    """The table(s) of one file, checked; raises ``TableError`` with a plain message for a bad file."""
    suffix = PurePosixPath(source.replace("\\", "/")).suffix.lower()
    if suffix == ".csv":
        text, encoding = decode_text(source, data)
        try:
            dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
            delimiter = dialect.delimiter
        except csv.Error:
            delimiter = ","
        rows = [row for row in csv.reader(io.StringIO(text), delimiter=delimiter)]
        return [_check_rows(source, table_name(source), rows, max_rows, encoding)]
    if suffix == ".xlsx":
        return [_check_rows(source, table_name(source), _xlsx_rows(source, data), max_rows, "binary")]
    if suffix in (".sqlite", ".sqlite3"):
        return _sqlite_tables(source, data, max_rows)
    raise TableError(f"{source}: {suffix or 'no extension'} is not a table format (use {', '.join(TABLE_EXTENSIONS)})")


def _xlsx_rows(source: str, data: bytes) -> list[list[Any]]:
    try:
        from openpyxl import load_workbook
    except ImportError:  # pragma: no cover - pinned in requirements.txt
        raise TableError("reading .xlsx needs openpyxl: pip install -r requirements.txt") from None
    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises several types for a damaged file
        raise TableError(f"{source} could not be read as an Excel workbook ({type(exc).__name__}): save it again "
                         "as .xlsx or export it as CSV UTF-8.") from None
    try:
        sheet = book.worksheets[0]
        rows = [["" if v is None else v for v in row] for row in sheet.iter_rows(values_only=True)]
    finally:
        book.close()
    while rows and all(v == "" for v in rows[-1]):  # trailing empty rows of a sheet
        rows.pop()
    width = max((max((i + 1 for i, v in enumerate(r) if v != ""), default=0) for r in rows), default=0)
    return [[("" if v is None else v) for v in r[:width]] + [""] * (width - len(r[:width])) for r in rows]


def _sqlite_tables(source: str, data: bytes, max_rows: int) -> list[ParsedTable]:
    if not data.startswith(b"SQLite format 3\x00"):
        raise TableError(f"{source} is not a SQLite database file.")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "upload.sqlite"
        path.write_bytes(data)
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)  # read-only: the upload is never changed
        try:
            names = [r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
            if not names:
                raise TableError(f"{source} holds no tables.")
            base = table_name(source)
            out = []
            for name in names:
                cursor = conn.execute(f'SELECT * FROM "{name.replace(chr(34), chr(34) * 2)}" LIMIT ?',
                                      (max_rows + 1,))
                header = [d[0] for d in cursor.description]
                rows = [header, *[list(r) for r in cursor.fetchall()]]
                sql_name = base if len(names) == 1 else f"{base}__{table_name(name)}"
                out.append(_check_rows(f"{source} (table {name})", sql_name, rows, max_rows, "binary"))
            return out
        except sqlite3.DatabaseError as exc:
            raise TableError(f"{source} could not be read as SQLite: {exc}") from None
        finally:
            conn.close()


def _check_rows(source: str, name: str, rows: list[list[Any]], max_rows: int, encoding: str) -> ParsedTable:
    rows = [r for r in rows if any(str(v).strip() for v in r)]  # blank lines are not rows
    if not rows:
        raise TableError(f"{source} is empty: a table needs a header row and at least one data row.")
    header = [str(v).strip() for v in rows[0]]
    if all(_looks_numeric(h) for h in header if h) or not any(header):
        raise TableError(f"{source} has no header row: the first row ({', '.join(header[:5])}) looks like data. "
                         "Add a first row with a name for every column.")
    missing = [i + 1 for i, h in enumerate(header) if not h]
    if missing:
        raise TableError(f"{source}: column {missing[0]} of the header row has no name. Give every column a name.")
    seen: set[str] = set()
    for h in header:
        if h.lower() in seen:
            raise TableError(f"{source}: the header names column '{h}' twice. Column names must be unique.")
        seen.add(h.lower())
    body = rows[1:]
    if not body:
        raise TableError(f"{source} has a header but no data rows.")
    if len(body) > max_rows:
        raise TableError(f"{source} has more than {max_rows:,} rows (RAG_TABLE_MAX_ROWS); split it or raise the "
                         "limit.")
    for i, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise TableError(f"{source}: row {i} has {len(row)} field(s) but the header has {len(header)} "
                             "(ragged rows). Fix that row (a stray comma or a missing value?) and upload it again.")
    columns, values = [], []
    for j, h in enumerate(header):
        kind = _column_type([r[j] for r in body])
        columns.append(TableColumn(h, kind))
        values.append(kind)
    data = [[_convert(r[j], values[j]) for j in range(len(header))] for r in body]
    return ParsedTable(name=name, columns=columns, rows=data, encoding=encoding)


def _looks_numeric(value: str) -> bool:
    return bool(_FLOAT.match(value.replace(",", "")))


def _column_type(values: list[Any]) -> str:
    present = [v for v in values if v is not None and str(v).strip() != ""]
    if not present:
        return "VARCHAR"
    if all(isinstance(v, bool) is False and (isinstance(v, int) or _INT.match(str(v).strip().replace(",", "")))
           for v in present):
        return "BIGINT"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) or _FLOAT.match(str(v).strip().replace(",", ""))
           for v in present):
        return "DOUBLE"
    if all(isinstance(v, date) or _DATE.match(str(v).strip()) for v in present):
        return "DATE"
    return "VARCHAR"


def _convert(value: Any, kind: str) -> Any:
    if value is None or str(value).strip() == "":
        return None
    if kind == "BIGINT":
        return int(str(value).strip().replace(",", "")) if not isinstance(value, int) else value
    if kind == "DOUBLE":
        return float(str(value).strip().replace(",", "")) if not isinstance(value, (int, float)) else float(value)
    if kind == "DATE":
        return value if isinstance(value, date) else date.fromisoformat(str(value).strip())
    return str(value).strip()


# ---- the store ------------------------------------------------------------------------------------------------------

def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


_VALUES: dict[tuple, list[Any]] = {}  # distinct values per (store file, revision, table, column, limit)
_VALUES_LOCK = threading.Lock()


class TableStore:
    """The tables of one knowledge base (one data directory): register, list, schema, preview, delete, query."""

    _write_lock = threading.Lock()  # one writer per process; DuckDB's file lock covers other processes

    def __init__(self, data_dir: Path | str, max_rows: int = 100_000) -> None:
        self.data_dir = Path(data_dir)
        self.path = self.data_dir / DB_FILE
        self.max_rows = max_rows

    # ---- connections ----
    def _connect(self, read_only: bool):
        import duckdb

        config = {"enable_external_access": False, "lock_configuration": True} if read_only else {}
        deadline = time.monotonic() + _LOCK_RETRY_S
        while True:
            try:
                return duckdb.connect(str(self.path), read_only=read_only, config=config)
            except duckdb.IOException as exc:  # another process holds the file: wait a little, then say so
                if time.monotonic() >= deadline:
                    raise RagError(f"the table store {self.path} is busy (another process writes to it): try again "
                                   f"in a moment ({exc})") from None
                time.sleep(0.1)
            except duckdb.ConnectionException:  # this process has it open with another configuration
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.05)

    @contextmanager
    def read_only_connection(self) -> Iterator[Any]:
        """A read-only DuckDB connection with file access, ATTACH and extension loading switched off."""
        if not self.path.exists():
            raise RagError("there are no tables yet: ingest a .csv, .xlsx or .sqlite file first")
        conn = self._connect(read_only=True)
        try:
            yield conn
        finally:
            conn.close()

    @contextmanager
    def _writer(self) -> Iterator[Any]:
        with TableStore._write_lock:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            conn = self._connect(read_only=False)
            try:
                conn.execute(f"CREATE TABLE IF NOT EXISTS {MANIFEST} (name VARCHAR PRIMARY KEY, source VARCHAR, "
                             "doc_id VARCHAR, columns VARCHAR, n_rows BIGINT, encoding VARCHAR, ingested_at VARCHAR)")
                yield conn
            finally:
                conn.close()

    # ---- writing ----
    def register(self, source: str, data: bytes) -> TableResult:
        """Check and load one file; never raises for a bad file (status "error" with the reason)."""
        doc_id = hashlib.sha256(data).hexdigest()[:16]
        try:
            parsed = parse_table_file(source, data, self.max_rows)
            existing = [t for t in self.list() if t.source == source]
            if existing and all(t.doc_id == doc_id for t in existing):
                return TableResult(source, doc_id, "unchanged", existing)
            taken = {t.name: t.source for t in self.list() if t.source != source}
            for table in parsed:
                if table.name in taken:
                    raise TableError(f"{source} would become table '{table.name}', which already holds "
                                     f"{taken[table.name]}: rename the file, or delete that table first.")
            infos = self._write(source, doc_id, parsed, [t.name for t in existing])
        except RagError as exc:
            return TableResult(source, doc_id, "error", error=str(exc))
        note = None
        if any(t.encoding == "cp949" for t in infos):
            note = "read as CP949 (EUC-KR), not UTF-8: the text was converted"
        return TableResult(source, doc_id, "replaced" if existing else "added", infos, note=note)

    def _write(self, source: str, doc_id: str, parsed: list[ParsedTable], old_names: list[str]) -> list[TableInfo]:
        infos = []
        stamp = now_iso()
        with self._writer() as conn:
            conn.execute("BEGIN TRANSACTION")
            try:
                for name in old_names:
                    conn.execute(f"DROP TABLE IF EXISTS {_quote(name)}")
                    conn.execute(f"DELETE FROM {MANIFEST} WHERE name = ?", [name])
                for table in parsed:
                    cols = ", ".join(f"{_quote(c.name)} {c.type}" for c in table.columns)
                    conn.execute(f"CREATE TABLE {_quote(table.name)} ({cols})")
                    marks = ", ".join("?" for _ in table.columns)
                    if table.rows:
                        conn.executemany(f"INSERT INTO {_quote(table.name)} VALUES ({marks})", table.rows)
                    info = TableInfo(table.name, source, doc_id, table.columns, len(table.rows), table.encoding, stamp)
                    conn.execute(f"INSERT INTO {MANIFEST} VALUES (?, ?, ?, ?, ?, ?, ?)",
                                 [info.name, source, doc_id, json.dumps([asdict(c) for c in info.columns],
                                                                        ensure_ascii=False),
                                  info.n_rows, info.encoding, stamp])
                    infos.append(info)
                conn.execute("COMMIT")
            except Exception:
                conn.execute("ROLLBACK")
                raise
        return infos

    def delete(self, name_or_source: str) -> bool:
        """Drop a table by its name, or every table of a source file. False when there is none."""
        targets = [t.name for t in self.list() if name_or_source in (t.name, t.source)]
        if not targets:
            return False
        with self._writer() as conn:
            for name in targets:
                conn.execute(f"DROP TABLE IF EXISTS {_quote(name)}")
                conn.execute(f"DELETE FROM {MANIFEST} WHERE name = ?", [name])
        return True

    def reset(self) -> None:
        """Remove every table."""
        for path in (self.path, self.path.with_name(self.path.name + ".wal")):
            if path.exists():
                path.unlink()

    # ---- reading ----
    def list(self) -> list[TableInfo]:
        if not self.path.exists():
            return []
        with self.read_only_connection() as conn:
            try:
                rows = conn.execute(f"SELECT name, source, doc_id, columns, n_rows, encoding, ingested_at FROM "
                                    f"{MANIFEST} ORDER BY source, name").fetchall()
            except Exception:  # a store created by a crashed first write has no manifest yet
                return []
        return [TableInfo(r[0], r[1], r[2], [TableColumn(**c) for c in json.loads(r[3])], int(r[4]), r[5], r[6])
                for r in rows]

    def schema(self, name: str) -> TableInfo | None:
        return next((t for t in self.list() if t.name == name), None)

    def preview(self, name: str, n: int = PREVIEW_ROWS) -> tuple[list[str], list[tuple]]:
        info = self.schema(name)
        if info is None:
            raise RagError(f"there is no table '{name}'")
        with self.read_only_connection() as conn:
            rows = conn.execute(f"SELECT * FROM {_quote(name)} LIMIT {int(n)}").fetchall()
        return [c.name for c in info.columns], rows

    def distinct_values(self, name: str, column: str, limit: int = 200) -> list[Any]:
        """Distinct non-null values of one column (at most ``limit``, in first-seen order), for matching words of a
        question; cached until the store changes."""
        key = (str(self.path), self.revision(), name, column, limit)
        with _VALUES_LOCK:
            if key in _VALUES:
                return list(_VALUES[key])
        with self.read_only_connection() as conn:
            rows = conn.execute(f"SELECT {_quote(column)} FROM {_quote(name)} WHERE {_quote(column)} IS NOT NULL "
                                f"GROUP BY {_quote(column)} ORDER BY MIN(rowid) LIMIT {int(limit) + 1}").fetchall()
        values = [r[0] for r in rows][:limit]
        with _VALUES_LOCK:
            if len(_VALUES) > 2000:
                _VALUES.clear()
            _VALUES[key] = values
        return list(values)

    def revision(self) -> tuple[float, int]:
        """Changes whenever a table is written (file time and size), for caches."""
        try:
            stat = self.path.stat()
        except OSError:
            return (0.0, 0)
        return (stat.st_mtime, stat.st_size)
