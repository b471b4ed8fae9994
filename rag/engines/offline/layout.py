"""How a document's lines are laid out, for answer selection: list items (and which list each belongs to), numbered
steps, title and heading lines, bylines, Markdown table rows, and whether a sentence is long enough to quote.
Language-independent structure, not tuned to a corpus."""
from __future__ import annotations

import re

from rag.engines.offline.rules import HEADING_MAX
from rag.sentences import ARTICLE_HEADING

_CJK = re.compile(r"[\uac00-\ud7a3\u3400-\u4dbf\u4e00-\u9fff]")


_LIST_LINE = re.compile(r"^\s*([-*•]|\d+[.)])\s+(.+?)\s*$")


def _list_items(text: str) -> dict[str, int]:
    """The texts of the list items of a document (markers removed, spaces collapsed) → the list they belong to:
    consecutive lines with the same kind of marker ("-", "1.", "1)") form one list, so a plain-text document's
    numbered section titles ("1. Loans", "2. Fees") are not read as steps of the list under them."""
    items: dict[str, int] = {}
    run, kind = 0, None
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _LIST_LINE.match(line)
        marker = None if m is None else ("bullet" if m.group(1) in "-*•" else "num" + m.group(1)[-1])
        if marker != kind:
            run += 1
            kind = marker
        if m is not None:
            items.setdefault(" ".join(m.group(2).split()), run)
    return items


_SENTENCE_END = re.compile(r"[.!?。！？:：;；]\s*[\"'”’)）]*$")


def _title_lines(text: str) -> set[str]:
    """The lines of a document that stand alone as a title or a section heading (plain text has no "#"): a line
    between blank lines (or the document's first line) with no sentence-final punctuation, not a list item or a
    table row; or a short line in capitals, or a numbered article / section line, after a blank line: the plain-text
    heading of the paragraph under it ("HOLIDAY BOARDING", "제3조 (폐액)", "第二条 费用", "Article 4 Fees"). Such a
    line names what follows; the sentences under it state the facts. In a plain-text document most such lines are
    headings already (``rag.sentences.plain_heading``), not sentences; this finds the ones that still are (the
    standalone lines of a Markdown document, a heading cut off by a chunk edge)."""
    lines = text.splitlines()
    out: set[str] = set()
    for k, raw in enumerate(lines):
        line = raw.strip()
        if not line or _LIST_LINE.match(line) or line.startswith("|") or _SENTENCE_END.search(line):
            continue
        before_blank = k == 0 or not lines[k - 1].strip()
        after_blank = k + 1 >= len(lines) or not lines[k + 1].strip()
        heading_like = len(line) <= HEADING_MAX and (line.isupper() or ARTICLE_HEADING.match(line) is not None)
        if before_blank and (after_blank or heading_like):
            out.add(" ".join(line.split()))
    return out


def _bylines(text: str) -> list[str]:
    """The bylines of a document: lines set wholly in emphasis ("_Owner: Digital Team. Revised October 2026._",
    "*Updated January 2026. Internal use.*"). They say who keeps the document and when, not a fact of its matter;
    each sentence of one ranks as a title does."""
    return [_line_key(m.group(2)) for m in _BYLINE.finditer(text)]


_BYLINE = re.compile(r"^[ \t]*([_*])(?![_*\s])(.+?)(?<![_*\s])\1[ \t]*$", re.M)


def _line_key(text: str) -> str:
    """A line as ``_title_lines`` keeps it: spaces collapsed, emphasis markers at its ends removed (the sentence
    splitter keeps a byline's closing "_" and drops its opening one as a list marker)."""
    return " ".join(text.strip().strip("_*").split())


def _numbered_items(text: str) -> set[str]:
    """The texts of the numbered list items of a document ("1. …", "2) …"), markers removed."""
    out: set[str] = set()
    for line in text.splitlines():
        m = _LIST_LINE.match(line)
        if m is not None and m.group(1)[0].isdigit():
            out.add(" ".join(m.group(2).split()))
    return out


_TABLE_ROW = re.compile(r"^\|.+\|.+\|$")


def _is_table_row(text: str) -> bool:
    return bool(_TABLE_ROW.match(text.strip()))


def is_table_header(text: str) -> bool:
    """A table row that states no value (its column names): a poor answer on its own."""
    return _is_table_row(text) and not re.search(r"\d", text)


# "Deposit: 30% of the price", "**Anvil** (build farm): requests are …", "발주 마감 — 전날 14:00까지": a short lead
# before a colon or a spaced dash names what the line states (not a time "09:00", not a sentence: no end mark inside)
_FIELD_LEAD = re.compile(r"^\s*[*_]*\s*([^:：—–|.!?。！？\n]{1,40}?)\s*[*_]*\s*(?:[:：](?!\d)|\s[—–]\s)\s*\S")


def field_label(text: str) -> str:
    """What a line states a value of: a table row's first cell ("| 定金 | 蛋糕价格的 30% |" → "定金"), or the lead of a
    "label: value" line; "" for a header row, a one-cell row or a plain sentence. Language-independent structure."""
    clean = text.strip()
    if _is_table_row(clean):
        cells = [c.strip(" *_") for c in clean.strip("|").split("|")]
        return cells[0] if len(cells) >= 2 and not is_table_header(clean) and re.search(r"\D", cells[0]) else ""
    m = _FIELD_LEAD.match(clean)
    return m.group(1).replace("*", "").strip(" _") if m and re.search(r"[^\W\d_]", m.group(1)) else ""


def _quotable(text: str) -> bool:
    """Long enough to state something: 12+ characters with a space, or 6+ for Chinese / Korean / Japanese; a table
    row with two cells or more."""
    clean = text.strip()
    if _is_table_row(clean):
        return bool(re.search(r"\w", clean))
    if _CJK.search(clean):
        return len(clean) >= 6
    return len(clean) >= 12 and " " in clean
