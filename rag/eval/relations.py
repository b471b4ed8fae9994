"""Relation-extraction precision and recall against a hand-labelled set (``relations.jsonl``).

One JSON object per labelled document::

    {"source": "staff_directory.md",
     "relations": [{"subject": ["Hyunwoo Seo", "서현우"], "relation": "leads", "object": ["Digital Collections Team"]},
                   {"subject": [...], "relation": "*", "object": [...], "optional": true}],
     "not_relations": [{"a": ["Hyunwoo Seo"], "b": ["Jimin Han"], "why": "presented together"}]}

Names are compared by ``entity_key`` (NFKC, case-folded, whitespace collapsed); a name may be one string or a list
of acceptable names. Relation types are those of ``rag/extract/``; ``"*"`` accepts any type and either direction.

Scored over the relations extracted from the labelled documents only (their ``source_file``), ``also_known_as``
excluded (an alias is not a fact about the world):

* **precision** — extracted relations that match a labelled one (optional ones included) / extracted relations;
* **recall** — labelled, non-optional relations found / labelled, non-optional relations;
* **co-occurrence violations** — ``not_relations`` pairs that the extractor linked anyway (any type, any direction).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any, Iterable

from rag.eval.questions import jsonl_objects
from rag.graphstore.base import entity_key
from rag.types import RagError, Relation

IGNORED_PREDICATES = frozenset({"also_known_as"})
ANY = "*"


class RelationSetError(RagError):
    """A relations.jsonl file could not be read; the message lists every bad line."""


def _names(value: Any) -> frozenset[str] | None:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        return None
    return frozenset(entity_key(v) for v in value)


@dataclass(frozen=True)
class LabelledRelation:
    subject: frozenset[str]
    relation: str
    object: frozenset[str]
    optional: bool = False
    shown: str = ""  # "subject —relation→ object" with the first names, for messages

    def matches(self, source: str, predicate: str, target: str) -> bool:
        s, t = entity_key(source), entity_key(target)
        if self.relation == ANY:
            return (s in self.subject and t in self.object) or (t in self.subject and s in self.object)
        return predicate == self.relation and s in self.subject and t in self.object


@dataclass(frozen=True)
class NotRelation:
    a: frozenset[str]
    b: frozenset[str]
    shown: str = ""

    def violated_by(self, source: str, target: str) -> bool:
        s, t = entity_key(source), entity_key(target)
        return (s in self.a and t in self.b) or (t in self.a and s in self.b)


@dataclass
class DocumentLabels:
    source: str
    relations: list[LabelledRelation] = field(default_factory=list)
    not_relations: list[NotRelation] = field(default_factory=list)


def parse_relation_labels(lines: Iterable[str] | str, name: str = "relations") -> list[DocumentLabels]:
    """JSONL text -> one DocumentLabels per line; every bad line is reported at once (RelationSetError)."""
    docs: list[DocumentLabels] = []
    errors: list[str] = []
    for number, obj in jsonl_objects(lines, errors):
        problems: list[str] = []
        source = obj.get("source") if isinstance(obj, dict) else None
        if not isinstance(source, str) or not source.strip():
            errors.append(f"line {number}: 'source' (the labelled file's name) is missing")
            continue
        doc = DocumentLabels(source=PurePath(source.strip()).name)
        for i, rel in enumerate(obj.get("relations") or []):
            subj = _names(rel.get("subject")) if isinstance(rel, dict) else None
            obj_ = _names(rel.get("object")) if isinstance(rel, dict) else None
            pred = rel.get("relation") if isinstance(rel, dict) else None
            if subj is None or obj_ is None or not isinstance(pred, str) or not pred.strip():
                problems.append(f"relations[{i}] needs 'subject', 'relation' and 'object' (names: a string or a "
                                "list of strings)")
                continue
            first = lambda v: v if isinstance(v, str) else v[0]  # noqa: E731
            doc.relations.append(LabelledRelation(subj, pred.strip(), obj_, bool(rel.get("optional", False)),
                                                  f"{first(rel['subject'])} —{pred.strip()}→ {first(rel['object'])}"))
        for i, neg in enumerate(obj.get("not_relations") or []):
            a = _names(neg.get("a")) if isinstance(neg, dict) else None
            b = _names(neg.get("b")) if isinstance(neg, dict) else None
            if a is None or b is None:
                problems.append(f"not_relations[{i}] needs 'a' and 'b' (a string or a list of strings)")
                continue
            first = lambda v: v if isinstance(v, str) else v[0]  # noqa: E731
            doc.not_relations.append(NotRelation(a, b, f"{first(neg['a'])} / {first(neg['b'])}"))
        if problems:
            errors.append(f"line {number} ({doc.source}): " + "; ".join(problems))
        else:
            docs.append(doc)
    if errors:
        raise RelationSetError(f"{name}: {len(errors)} bad line(s):\n  " + "\n  ".join(errors))
    if not docs:
        raise RelationSetError(f"{name}: no labelled documents found (one JSON object per line)")
    return docs


def load_relation_labels(path: str | Path) -> list[DocumentLabels]:
    path = Path(path)
    if not path.is_file():
        raise RelationSetError(f"relation labels not found: {path} (a relations.jsonl file)")
    return parse_relation_labels(path.read_text(encoding="utf-8"), name=path.name)


def graph_relations(graph: Any, limit: int = 100_000) -> list[Relation]:
    """Every relation in a GraphStore, through its protocol (each entity's one-hop neighbourhood), deduplicated."""
    seen: set[tuple[str, str, str, str]] = set()
    out: list[Relation] = []
    for name in graph.entity_names():
        _, relations = graph.neighbourhood(name, hops=1, limit=limit)
        for r in relations:
            key = (entity_key(r.source), r.predicate, entity_key(r.target), r.chunk_id)
            if key not in seen:
                seen.add(key)
                out.append(r)
    return out


def _source_name(rel: Relation) -> str:
    return PurePath(rel.source_file or "").name


def score_relations(labels: list[DocumentLabels], relations: Iterable[Relation]) -> dict[str, Any]:
    """Precision / recall / co-occurrence violations over the labelled documents (see the module doc)."""
    by_source: dict[str, list[tuple[str, str, str, str]]] = {}
    for r in relations:
        if r.predicate in IGNORED_PREDICATES:
            continue
        by_source.setdefault(_source_name(r), []).append((r.source, r.predicate, r.target, r.evidence))
    n_extracted = n_correct = n_required = n_found = n_neg = n_viol = 0
    per_doc: list[dict[str, Any]] = []
    wrong: list[dict[str, str]] = []
    missed: list[dict[str, str]] = []
    violations: list[dict[str, str]] = []
    for doc in labels:
        extracted: dict[tuple[str, str, str], tuple[str, str, str, str]] = {}
        for s, p, t, ev in by_source.get(doc.source, []):
            extracted.setdefault((entity_key(s), p, entity_key(t)), (s, p, t, ev))
        correct = 0
        for s, p, t, ev in extracted.values():
            if any(g.matches(s, p, t) for g in doc.relations):
                correct += 1
            else:
                wrong.append({"source": doc.source, "relation": f"{s} —{p}→ {t}", "evidence": ev})
        required = [g for g in doc.relations if not g.optional]
        found = 0
        for g in required:
            if any(g.matches(s, p, t) for s, p, t, _ in extracted.values()):
                found += 1
            else:
                missed.append({"source": doc.source, "relation": g.shown})
        viol = 0
        for neg in doc.not_relations:
            hit = next(((s, p, t, ev) for s, p, t, ev in extracted.values() if neg.violated_by(s, t)), None)
            if hit:
                viol += 1
                violations.append({"source": doc.source, "pair": neg.shown, "relation": f"{hit[0]} —{hit[1]}→ {hit[2]}",
                                   "evidence": hit[3]})
        per_doc.append({"source": doc.source, "extracted": len(extracted), "correct": correct,
                        "labelled": len(required), "found": found, "not_relations": len(doc.not_relations),
                        "violations": viol})
        n_extracted += len(extracted)
        n_correct += correct
        n_required += len(required)
        n_found += found
        n_neg += len(doc.not_relations)
        n_viol += viol
    precision = None if n_extracted == 0 else round(n_correct / n_extracted, 4)
    recall = None if n_required == 0 else round(n_found / n_required, 4)
    if precision is None or recall is None:
        f1 = None
    else:
        f1 = 0.0 if precision + recall == 0 else round(2 * precision * recall / (precision + recall), 4)
    return {"documents": len(labels), "extracted": n_extracted, "correct": n_correct, "labelled": n_required,
            "found": n_found, "precision": precision, "recall": recall, "f1": f1, "not_relations": n_neg, "cooccurrence_violations": n_viol, "per_document": per_doc,
            "wrong": wrong, "missed": missed, "violations": violations}


def format_relations(result: dict[str, Any], max_items: int = 12) -> str:
    """A few lines for the text report: the headline figures, then wrong / missed relations and violations."""
    def fmt(v: Any) -> str:
        return "-" if v is None else f"{v:.3f}"

    lines = [f"relation extraction vs {result.get('labels', 'labelled set')} ({result['documents']} labelled documents, "
             "also_known_as not scored)",
             f"  precision {fmt(result['precision'])} ({result['correct']} of {result['extracted']} extracted are "
             f"labelled) · recall {fmt(result['recall'])} ({result['found']} of {result['labelled']} labelled found) · "
             f"f1 {fmt(result['f1'])} · co-occurrences made relations: {result['cooccurrence_violations']} of "
             f"{result['not_relations']}"]
    for title, key, field_ in (("not labelled (counted wrong)", "wrong", "relation"),
                               ("labelled, not extracted", "missed", "relation"),
                               ("co-occurrence made a relation", "violations", "relation")):
        items = result.get(key) or []
        if items:
            lines.append(f"  {title}: {len(items)}")
            for it in items[:max_items]:
                lines.append(f"    {it['source']}: {it[field_]}")
            if len(items) > max_items:
                lines.append(f"    ... and {len(items) - max_items} more (see the JSON report)")
    return "\n".join(lines)
