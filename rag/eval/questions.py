"""Question sets: one JSON object per line (JSONL), validated with an error per bad line.

A line looks like::

    {"id": "q01", "question": "...", "expected_route": "vector", "kind": "covered",
     "expected": [["Seoul", "서울"], ["2019"]], "relevant_sources": ["facts.md"], "reference": "..."}

Only ``id`` and ``question`` are required. ``expected`` is a list of groups of acceptable key facts: an answer
hits when it contains one string of *each* group. A bare string in ``expected`` is a group of one.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from rag.types import RagError

ROUTES: tuple[str, ...] = ("vector", "graph", "web", "direct", "sql")
KINDS: tuple[str, ...] = ("covered", "uncovered", "web", "direct")
FIELDS: tuple[str, ...] = ("id", "question", "expected_route", "kind", "expected", "relevant_sources", "reference")


class QuestionSetError(RagError):
    """A question set could not be read; the message lists every bad line."""


@dataclass
class Question:
    id: str
    question: str
    expected_route: str | None = None
    kind: str | None = None
    expected: list[list[str]] = field(default_factory=list)
    relevant_sources: list[str] = field(default_factory=list)
    reference: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # unknown keys, kept so a round trip loses nothing

    @property
    def effective_kind(self) -> str | None:
        """The kind, or "covered" when none is given but key facts or relevant sources are."""
        if self.kind:
            return self.kind
        if self.expected or self.relevant_sources:
            return "covered"
        return None

    def to_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in asdict(self).items() if k != "extra"}
        data = {k: v for k, v in data.items() if v not in (None, [], "")}
        data.update(self.extra)
        return data


@dataclass
class QuestionSet:
    name: str
    questions: list[Question]

    def __len__(self) -> int:
        return len(self.questions)

    def __iter__(self):
        return iter(self.questions)

    def to_jsonl(self) -> str:
        return "".join(json.dumps(q.to_dict(), ensure_ascii=False) + "\n" for q in self.questions)


def _string_list(value: Any, name: str) -> tuple[list[str], str | None]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        return [], f"'{name}' must be a list of non-empty strings"
    return [v.strip() for v in value], None


def parse_question(obj: Any) -> Question:
    """One decoded JSON value -> Question; raises ValueError with a plain message."""
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object, got {type(obj).__name__}")
    problems: list[str] = []
    qid = obj.get("id")
    if isinstance(qid, int) and not isinstance(qid, bool):
        qid = str(qid)
    if not isinstance(qid, str) or not qid.strip():
        problems.append("'id' is missing or empty (a string such as \"q01\")")
        qid = ""
    text = obj.get("question")
    if not isinstance(text, str) or not text.strip():
        problems.append("'question' is missing or empty")
        text = ""
    route = obj.get("expected_route")
    if route is not None and route not in ROUTES:
        problems.append(f"'expected_route' is {route!r}; use one of {', '.join(ROUTES)}")
    kind = obj.get("kind")
    if kind is not None and kind not in KINDS:
        problems.append(f"'kind' is {kind!r}; use one of {', '.join(KINDS)}")
    groups: list[list[str]] = []
    expected = obj.get("expected", [])
    if expected is None:
        expected = []
    if not isinstance(expected, list):
        problems.append("'expected' must be a list of groups, e.g. [[\"Seoul\", \"서울\"], [\"2019\"]]")
    else:
        for i, group in enumerate(expected):
            strings, err = _string_list(group, f"expected[{i}]")
            if err or not strings:
                problems.append(err or f"'expected[{i}]' is an empty group")
            else:
                groups.append(strings)
    sources, err = _string_list(obj.get("relevant_sources", []) or [], "relevant_sources")
    if err:
        problems.append(err)
    reference = obj.get("reference")
    if reference is not None and not isinstance(reference, str):
        problems.append("'reference' must be a string")
        reference = None
    if problems:
        raise ValueError("; ".join(problems))
    extra = {k: v for k, v in obj.items() if k not in FIELDS}
    return Question(id=qid.strip(), question=text.strip(), expected_route=route, kind=kind, expected=groups,
                    relevant_sources=sources, reference=(reference or None), extra=extra)


def jsonl_objects(lines: Iterable[str] | str, errors: list[str]) -> Iterator[tuple[int, Any]]:
    """JSONL text (or its lines) -> (line number, parsed value) per non-blank line; a line that is not JSON adds
    its message to ``errors`` and is skipped, so that every bad line can be reported at once."""
    if isinstance(lines, str):
        lines = lines.splitlines()
    for number, line in enumerate(lines, start=1):
        line = line.strip().lstrip("\ufeff")
        if not line:
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"line {number}: not valid JSON ({exc.msg} at column {exc.colno})")
            continue
        yield number, obj


def parse_questions(lines: Iterable[str] | str, name: str = "questions") -> QuestionSet:
    """JSONL text (or its lines) -> QuestionSet. Blank lines are skipped; every bad line is reported at once."""
    questions: list[Question] = []
    errors: list[str] = []
    seen: dict[str, int] = {}
    for number, obj in jsonl_objects(lines, errors):
        try:
            q = parse_question(obj)
        except ValueError as exc:
            errors.append(f"line {number}: {exc}")
            continue
        if q.id in seen:
            errors.append(f"line {number}: id {q.id!r} is already used on line {seen[q.id]}")
            continue
        seen[q.id] = number
        questions.append(q)
    if errors:
        shown = errors[:20] + ([f"... and {len(errors) - 20} more"] if len(errors) > 20 else [])
        raise QuestionSetError(f"{name}: {len(errors)} bad line(s):\n  " + "\n  ".join(shown))
    if not questions:
        raise QuestionSetError(f"{name}: no questions found (expected one JSON object per line)")
    return QuestionSet(name=name, questions=questions)


def load_questions(path: str | Path) -> QuestionSet:
    """Read a JSONL question set from a file; raises QuestionSetError with a plain message."""
    path = Path(path)
    if not path.is_file():
        raise QuestionSetError(f"question set not found: {path} (pass a .jsonl file, e.g. sample_docs/questions.jsonl)")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise QuestionSetError(f"{path.name}: not UTF-8 text; save the question set as UTF-8 JSONL") from None
    return parse_questions(text, name=path.name)


def load_questions_bytes(name: str, data: bytes) -> QuestionSet:
    """An uploaded question set (bytes) -> QuestionSet."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise QuestionSetError(f"{name}: not UTF-8 text; save the question set as UTF-8 JSONL") from None
    return parse_questions(text, name=name)
