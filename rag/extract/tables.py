"""Relations stated by a Markdown table: the row names a thing in its first cell, and a column's header says how
each other cell relates to it ("| Team | Korean name | Lead |" → the Lead cell leads the team, the Korean name is
an alias). Structure, not a sentence: a directory or a systems overview written as a table states its relations
in the header, once, and no sentence trigger (``patterns.PATTERNS``) sees them.

Precision first: only a header with a cue below gives a relation (a column "Where they sit" or "If it is down"
gives none); a person's cell must hold a name ("two part-time clerks in season" is none); every relation's
evidence is the row as written. A chunk that starts inside a table gets its header from the chunk before it
(``carried_header``), so a row's meaning does not depend on where the chunk edge fell."""
from __future__ import annotations

import re

from rag.extract.aliases import ALIAS_PREDICATE

# language: what a column header says about its cells, relative to the row's first cell (R) — (predicate, the
# cell is the relation's source). Not tuned on a corpus: the words a table header uses for the relation.
COLUMN_CUES: tuple[tuple[str, str, bool], ...] = (
    (r"\b(?:lead|leader|head|manager|director|chief)\b|팀장|책임자|리더|부서장|负责人|组长|主管|领导", "leads", True),
    (r"\b(?:members?|staff)\b|팀원|구성원|成员|组员", "belongs_to", True),
    (r"\b(?:built|developed|made|designed) by\b|\b(?:builder|developer|maker|manufacturer|vendor)\b|"
     r"개발|제작|제조|开发|制造|厂商", "developed_by", False),
    (r"\b(?:run|operated|maintained|owned) by\b|\bowner\b|운영|담당|运营|维护", "owns", True),
    (r"\b(?:location|city|headquarters)\b|\bbased in\b|위치|소재지|도시|所在地|城市|总部", "located_in", False),
    (r"\b(?:uses|depends on|reads from|data from)\b|사용|연동|使用|依赖", "uses", False),
    (r"\b(?:korean|chinese|english|japanese|other) name\b|\balso known as\b|한국어|국문|영문|중문|中文名|英文名|韩文名",
     ALIAS_PREDICATE, False),
)
_ROW = re.compile(r"^\s*\|(.+)\|\s*$")
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
_MARKUP = re.compile(r"[*_`]+")
# a cell that names one thing: no sentence inside it, not a number or a date
_NAME_CELL = re.compile(r"^[^.。!?！？:;：；]{2,60}$")
# a person's name: two to four capitalised Latin words, or two to five Hangul / Han characters
_PERSON = re.compile(r"^(?:(?:Dr\.?|Prof\.?)\s+)?[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+){1,3}$|^[가-힣]{2,5}$|"
                     r"^[\u4e00-\u9fff]{2,5}$")
_PERSON_PREDICATES = frozenset({"leads", "belongs_to"})  # a cell for these holds a person


def _cells(line: str) -> list[str]:
    m = _ROW.match(line)
    return [] if m is None else [_MARKUP.sub("", c).strip() for c in m.group(1).split("|")]


def _column_predicate(header: str) -> tuple[str, bool] | None:
    h = header.casefold()
    for cue, predicate, cell_first in COLUMN_CUES:
        if re.search(cue, h):
            return predicate, cell_first
    return None


def _names(cell: str, person: bool) -> list[tuple[str, str]]:
    """(name, alias) pairs a cell holds: "Boram Ha (하보람)" → ("Boram Ha", "하보람"); "A (a), PLC and electrical;
    B" → A and B (a comma ends a name's description). [] when it holds no name."""
    out = []
    for part in re.split(r"[;/、，]|\s+and\s+|<br\s*/?>", cell):
        part = part.split(",")[0].strip()
        m = re.match(r"^(.*?)\s*[(（]([^()（）]+)[)）]\s*$", part)
        name, alias = (m.group(1).strip(), m.group(2).strip()) if m else (part, "")
        if not name or not _NAME_CELL.match(name) or re.fullmatch(r"[\d\s.,:%~–-]+", name):
            continue
        if person and not _PERSON.match(name):
            continue
        out.append((name, alias if alias and _NAME_CELL.match(alias) else ""))
    return out


def carried_header(previous_text: str) -> str:
    """The header and separator lines of the table ``previous_text`` ends inside ("" when it ends outside one)."""
    lines = previous_text.rstrip("\n").splitlines()
    if not lines or not _ROW.match(lines[-1]):
        return ""
    for k in range(len(lines) - 1, 0, -1):
        if not _ROW.match(lines[k]) and not _SEPARATOR.match(lines[k]):
            return ""
        if _SEPARATOR.match(lines[k]) and _ROW.match(lines[k - 1]):
            return lines[k - 1] + "\n" + lines[k]
    return ""


def table_relations(text: str) -> list[tuple[str, str, str, str]]:
    """(source, predicate, target, evidence row) of every table in ``text`` (a chunk that starts inside a table is
    given with its ``carried_header`` in front, at ingest)."""
    lines = text.splitlines()
    out: list[tuple[str, str, str, str]] = []
    columns: list[tuple[str, bool] | None] = []
    k = 0
    while k < len(lines):
        line = lines[k]
        if k + 1 < len(lines) and _ROW.match(line) and _SEPARATOR.match(lines[k + 1]):
            columns = [_column_predicate(h) for h in _cells(line)]
            k += 2
            continue
        cells = _cells(line)
        if not cells or not columns or _SEPARATOR.match(line):
            columns = columns if cells else []
            k += 1
            continue
        k += 1
        subject = _names(cells[0], person=False)
        if not subject:
            continue
        (row_name, row_alias), row = subject[0], line.strip()
        if row_alias:
            out.append((row_name, ALIAS_PREDICATE, row_alias, row))
        for cell, column in zip(cells[1:], columns[1:]):
            if column is None:
                continue
            predicate, cell_first = column
            for name, alias in _names(cell, person=cell_first and predicate in _PERSON_PREDICATES):
                if predicate == ALIAS_PREDICATE:
                    out.append((row_name, predicate, name, row))
                    continue
                out.append((name, predicate, row_name, row) if cell_first else (row_name, predicate, name, row))
                if alias:
                    out.append((name, ALIAS_PREDICATE, alias, row))
    return out
