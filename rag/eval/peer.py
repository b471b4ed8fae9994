"""Peer suites: external benchmark sets in the llm-in-action format, turned into our documents + question set.

The format (``../shared/peer-suites/llm-in-action-08/``):

* ``knowledge_base.json`` — a list of ``{"id", "title", "content", ...}`` documents;
* ``manual_testset.json`` — a list of ``{"question", "ground_truth", "relevant_doc_ids"}``.

Each document becomes one Markdown file named by its id (``doc-001.md``), so a relevant doc id matches the
ingested source's file stem. Each question becomes a ``covered`` question whose ``relevant_sources`` are those
file names and whose ``reference`` is the ground truth. The suite gives no route and no key facts, so routing
accuracy and key-fact metrics are ``null`` for it.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.eval.questions import Question, QuestionSet, QuestionSetError

KB_FILE = "knowledge_base.json"
TESTSET_FILE = "manual_testset.json"
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class PeerSuiteError(QuestionSetError):
    """A peer suite folder is missing a file or has an entry in the wrong shape."""


@dataclass
class PeerDocument:
    doc_id: str
    title: str
    content: str

    @property
    def file_name(self) -> str:
        return f"{self.doc_id}.md"

    def markdown(self) -> str:
        title = f"# {self.title}\n\n" if self.title else ""
        return f"{title}{self.content.strip()}\n"


@dataclass
class PeerSuite:
    name: str
    documents: list[PeerDocument]
    questions: QuestionSet


def _read_json_list(path: Path) -> list[Any]:
    if not path.is_file():
        raise PeerSuiteError(f"peer suite file not found: {path}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise PeerSuiteError(f"{path.name}: not valid UTF-8 JSON ({exc})") from None
    if not isinstance(data, list):
        raise PeerSuiteError(f"{path.name}: expected a JSON list, got {type(data).__name__}")
    return data


def parse_peer_documents(entries: list[Any], name: str = KB_FILE) -> list[PeerDocument]:
    docs: list[PeerDocument] = []
    errors: list[str] = []
    seen: set[str] = set()
    for i, e in enumerate(entries):
        if not isinstance(e, dict):
            errors.append(f"entry {i}: expected an object")
            continue
        doc_id, content = e.get("id"), e.get("content")
        if not isinstance(doc_id, str) or not _SAFE_ID.match(doc_id):
            errors.append(f"entry {i}: 'id' must be a short name of letters, digits, '.', '_' or '-', got {doc_id!r}")
            continue
        if doc_id in seen:
            errors.append(f"entry {i}: duplicate id {doc_id!r}")
            continue
        if not isinstance(content, str) or not content.strip():
            errors.append(f"entry {i} ({doc_id}): 'content' is missing or empty")
            continue
        seen.add(doc_id)
        title = e.get("title") if isinstance(e.get("title"), str) else ""
        docs.append(PeerDocument(doc_id=doc_id, title=title.strip(), content=content))
    if errors:
        raise PeerSuiteError(f"{name}: " + "; ".join(errors))
    if not docs:
        raise PeerSuiteError(f"{name}: no documents")
    return docs


def parse_peer_testset(entries: list[Any], doc_ids: set[str], suite: str, name: str = TESTSET_FILE) -> QuestionSet:
    questions: list[Question] = []
    errors: list[str] = []
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or not isinstance(e.get("question"), str) or not e["question"].strip():
            errors.append(f"entry {i}: expected an object with a non-empty 'question'")
            continue
        ids = e.get("relevant_doc_ids") or []
        if not isinstance(ids, list) or not all(isinstance(x, str) for x in ids):
            errors.append(f"entry {i}: 'relevant_doc_ids' must be a list of strings")
            continue
        unknown = [x for x in ids if x not in doc_ids]
        if unknown:
            errors.append(f"entry {i}: relevant_doc_ids {unknown} are not in {KB_FILE}")
            continue
        truth = e.get("ground_truth")
        questions.append(Question(
            id=f"{suite}-q{i + 1:02d}", question=e["question"].strip(), kind="covered",
            relevant_sources=[f"{x}.md" for x in ids],
            reference=truth.strip() if isinstance(truth, str) and truth.strip() else None,
        ))
    if errors:
        raise PeerSuiteError(f"{name}: " + "; ".join(errors))
    if not questions:
        raise PeerSuiteError(f"{name}: no questions")
    return QuestionSet(name=f"{suite} (peer suite)", questions=questions)


def load_peer_suite(path: str | Path) -> PeerSuite:
    """A folder with knowledge_base.json and manual_testset.json -> PeerSuite."""
    path = Path(path)
    if not path.is_dir():
        raise PeerSuiteError(f"peer suite folder not found: {path} (it needs {KB_FILE} and {TESTSET_FILE})")
    docs = parse_peer_documents(_read_json_list(path / KB_FILE))
    questions = parse_peer_testset(_read_json_list(path / TESTSET_FILE), {d.doc_id for d in docs},
                                   suite=path.resolve().name)
    return PeerSuite(name=path.resolve().name, documents=docs, questions=questions)


def write_peer_suite(suite: PeerSuite, out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``out_dir/docs/<id>.md`` for each document and ``out_dir/questions.jsonl``; returns (docs dir, jsonl)."""
    out = Path(out_dir)
    docs_dir = out / "docs"
    docs_dir.mkdir(parents=True, exist_ok=True)
    for d in suite.documents:
        (docs_dir / d.file_name).write_text(d.markdown(), encoding="utf-8")
    jsonl = out / "questions.jsonl"
    jsonl.write_text(suite.questions.to_jsonl(), encoding="utf-8")
    return docs_dir, jsonl
