"""Evaluation metrics: pure functions over answers, documents and recorded runs.

Every per-question metric returns ``None`` when it does not apply (no expected facts, no relevant sources, no
reference, no expected route); aggregates average only the questions a metric applies to and are ``None`` when it
applies to none.

Definitions (also in docs/evaluation.md):

* **key-fact hit** — the answer contains at least one string of *every* group in ``expected``, compared after
  Unicode NFKC, case folding and removing all whitespace. An abstained run never hits.
* **flagged** — the run abstained or gave a partial answer that says what was not found; a flagged answer is not
  a *silent* one.
* **silent failure** — an unflagged answer that cannot be right: to an ``uncovered`` question; to a question with
  expected facts, missing one of them; or to a ``web`` question without expected facts, from no web evidence (a
  time-sensitive question the documents cannot answer, e.g. today's exchange rate).
* **context precision / recall (ID-based)** — a document is relevant when its source file name, file stem or doc
  id matches one of ``relevant_sources``. Precision is the share of the documents the generator was *given*
  (the ``doc_ids`` its generate / partial_answer step recorded) that are relevant; recall is the share of relevant
  sources found among them. What the generator is given differs by variant, on purpose: naive hands it every
  top-k chunk; agentic only the chunks its grader kept (correct or ambiguous) from the attempts that passed the
  threshold. The ``*_retrieved`` variants count every document retrieved in any attempt, for a like-for-like
  retriever view. Both apply only to answerable questions: on an ``uncovered`` question the listed sources are
  decoys (the similar-looking chunk), not evidence.
* **facts in context** — every ``expected`` group is found (as for key-fact hits) in the text of the documents the
  run retrieved, in any attempt: the answer was there to be found, whatever the run then did with it.
* **quality AUROC** — does the run's own context-quality score (the best any attempt recorded) rank the runs whose
  context holds the answer above the rest? Positives: covered questions with the facts in context; negatives: the
  other covered questions and the traps. The label does not depend on what the run decided (answer or flag), so
  0.5 means the score carries no information about whether the context answers the question.
* **answer similarity** (non-LLM, RAGAS-style) — token F1 between answer and ``reference``.
* **reference context recall** (non-LLM, RAGAS-style) — share of the reference's sentences whose tokens are at
  least half present in the used context.
"""
from __future__ import annotations

import math
import re
import unicodedata
from pathlib import PurePosixPath
from typing import Any, Iterable, Sequence

from rag.types import context_of

ROUTE_NONE = "none"  # the route label for a run that recorded none


# ---- text -------------------------------------------------------------------------------------------------------
def normalize_fact(text: str) -> str:
    """NFKC, case-folded, all whitespace removed: 'Ｓｅｏｕｌ  City' and 'seoulcity' compare equal."""
    text = unicodedata.normalize("NFKC", text or "").casefold()
    return re.sub(r"\s+", "", text)


def matched_groups(answer: str, expected: Sequence[Sequence[str]]) -> list[bool]:
    """For each group of acceptable facts: does the answer contain one of them?"""
    norm = normalize_fact(answer)
    return [any(normalize_fact(f) and normalize_fact(f) in norm for f in group) for group in expected]


def key_fact_hit(answer: str, expected: Sequence[Sequence[str]]) -> bool | None:
    """True when the answer contains one string of every group; None when there are no expected facts."""
    if not expected:
        return None
    if not (answer or "").strip():
        return False
    return all(matched_groups(answer, expected))


_CJK = (r"\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff")
_TOKEN_RE = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+", re.UNICODE)
_CJK_RE = re.compile(rf"^[{_CJK}]+$")


def tokens(text: str) -> list[str]:
    """Word tokens for Latin-script text; character bigrams for CJK and Hangul runs (no segmenter needed)."""
    out: list[str] = []
    for piece in _TOKEN_RE.findall(unicodedata.normalize("NFKC", text or "").casefold()):
        if _CJK_RE.match(piece):
            out.extend([piece] if len(piece) == 1 else [piece[i:i + 2] for i in range(len(piece) - 1)])
        else:
            out.append(piece)
    return out


def _multiset_overlap(a: list[str], b: list[str]) -> int:
    counts: dict[str, int] = {}
    for t in b:
        counts[t] = counts.get(t, 0) + 1
    hit = 0
    for t in a:
        if counts.get(t, 0) > 0:
            counts[t] -= 1
            hit += 1
    return hit


def answer_similarity(answer: str, reference: str | None) -> float | None:
    """Token F1 between answer and reference (non-LLM); None without a reference, 0.0 for an empty answer."""
    if not reference or not reference.strip():
        return None
    ref, ans = tokens(reference), tokens(answer or "")
    if not ref:
        return None
    if not ans:
        return 0.0
    common = _multiset_overlap(ans, ref)
    if common == 0:
        return 0.0
    precision, recall = common / len(ans), common / len(ref)
    return 2 * precision * recall / (precision + recall)


_SENTENCE_RE = re.compile(r"(?<=[.!?。！？])\s*|\n+")


def reference_context_recall(contexts: Sequence[str], reference: str | None, min_overlap: float = 0.5) -> float | None:
    """Share of reference sentences whose tokens are at least ``min_overlap`` present in the contexts (non-LLM)."""
    if not reference or not reference.strip():
        return None
    sentences = [s for s in (p.strip() for p in _SENTENCE_RE.split(reference)) if tokens(s)]
    if not sentences:
        return None
    context_tokens = set(tokens(" ".join(contexts)))
    if not context_tokens:
        return 0.0
    attributed = 0
    for s in sentences:
        toks = tokens(s)
        if sum(1 for t in toks if t in context_tokens) / len(toks) >= min_overlap:
            attributed += 1
    return attributed / len(sentences)


# ---- documents ----------------------------------------------------------------------------------------------------
def _norm_id(value: str) -> str:
    return unicodedata.normalize("NFKC", value or "").strip().casefold()


def doc_keys(doc: Any) -> set[str]:
    """Names a retrieved document answers to: doc id, source, its file name and stem, and a graph fact's source file."""
    keys: set[str] = set()
    names = [getattr(doc, "source", None), getattr(doc, "doc_id", None)]
    meta = getattr(doc, "metadata", None) or {}
    for k in ("source_file", "source"):
        if isinstance(meta.get(k), str):
            names.append(meta[k])
    for k in ("source_files", "sources"):
        if isinstance(meta.get(k), list):
            names.extend(v for v in meta[k] if isinstance(v, str))
    for name in names:
        if not name:
            continue
        keys.add(_norm_id(name))
        base = PurePosixPath(str(name).replace("\\", "/")).name
        keys.add(_norm_id(base))
        if "." in base:
            keys.add(_norm_id(base.rsplit(".", 1)[0]))
    keys.discard("")
    return keys


def _relevant_keys(relevant: Iterable[str]) -> list[set[str]]:
    out = []
    for r in relevant:
        base = PurePosixPath(str(r).replace("\\", "/")).name
        ks = {_norm_id(r), _norm_id(base)}
        if "." in base:
            ks.add(_norm_id(base.rsplit(".", 1)[0]))
        ks.discard("")
        out.append(ks)
    return out


def is_relevant(doc: Any, relevant: Iterable[str]) -> bool:
    keys = doc_keys(doc)
    return any(keys & rk for rk in _relevant_keys(relevant))


def context_precision(docs: Sequence[Any], relevant: Sequence[str]) -> float | None:
    """Share of documents whose source matches a relevant source; None with no relevant sources or no documents."""
    if not relevant or not docs:
        return None
    return sum(1 for d in docs if is_relevant(d, relevant)) / len(docs)


def context_recall(docs: Sequence[Any], relevant: Sequence[str]) -> float | None:
    """Share of relevant sources found among the documents; None with no relevant sources (0.0 with no documents)."""
    if not relevant:
        return None
    found_keys: set[str] = set()
    for d in docs:
        found_keys |= doc_keys(d)
    return sum(1 for rk in _relevant_keys(relevant) if rk & found_keys) / len(relevant)


# ---- runs -----------------------------------------------------------------------------------------------------
GENERATOR_NODES = ("generate", "partial_answer", "direct_generate")  # the agentic ones; see generator_nodes()


def generator_nodes() -> tuple[str, ...]:
    """Answer-producing nodes of every registered variant (rag.variants.registry), plus the agentic ones."""
    try:
        from rag.variants.registry import answer_nodes
    except ImportError:
        return GENERATOR_NODES
    return tuple(dict.fromkeys([*GENERATOR_NODES, *answer_nodes()]))


def used_documents(run: Any) -> list[Any]:
    """The documents the generator was given: the ``doc_ids`` of the run's last generating step, one record per id.

    Runs recorded without those ids fall back to graded-usable documents (correct or ambiguous) when the run
    graded, otherwise to everything retrieved.
    """
    docs = list(run.documents)
    answer_nodes = generator_nodes()  # once per run, not once per step
    for step in reversed(run.steps):
        if step.node in answer_nodes and isinstance(step.inputs.get("doc_ids"), list):
            wanted = [str(i) for i in step.inputs["doc_ids"]]
            by_id: dict[str, Any] = {}
            for d in docs:  # a graded record wins over an ungraded one of the same id
                if d.id not in by_id or (by_id[d.id].grade is None and d.grade is not None):
                    by_id[d.id] = d
            return [by_id[i] for i in dict.fromkeys(wanted) if i in by_id]
    if any(d.grade is not None for d in docs):
        return [d for d in docs if d.grade in ("correct", "ambiguous")]
    return docs


def is_flagged(run: Any) -> bool:
    """The run told the user the evidence was missing or incomplete."""
    return bool(run.abstained or getattr(run, "partial", False))


def score_run(question: Any, run: Any) -> dict[str, Any]:
    """One question + its recorded Run -> one row of per-question metrics (None where a metric does not apply)."""
    kind = question.effective_kind
    error = run.error
    route = run.route or ROUTE_NONE
    flagged = is_flagged(run)
    groups = matched_groups(run.answer, question.expected) if question.expected else []
    hit = None if not question.expected else (False if run.abstained else key_fact_hit(run.answer, question.expected))
    used = used_documents(run)
    # what the searches returned: not the neighbouring chunks the answer read as context (with_context_neighbours)
    retrieved = [d for d in run.documents if not context_of(d)]
    if error:
        silent = None
    elif kind == "uncovered":
        silent = not flagged
    elif question.expected:
        silent = (not flagged) and not hit
    elif kind == "web":
        silent = (not flagged) and not any(d.tool == "web" for d in used)
    else:
        silent = None
    rel = question.relevant_sources if kind != "uncovered" else []  # an uncovered question's sources are decoys
    path = list(run.path)
    tokens_total = run.tokens["total"]
    return {
        "id": question.id,
        "variant": run.variant,
        "question": question.question,
        "kind": kind,
        "expected_route": question.expected_route,
        "route": route,
        "route_correct": None if question.expected_route is None else route == question.expected_route,
        "abstained": bool(run.abstained),
        "partial": bool(getattr(run, "partial", False)),
        "flagged": flagged,
        "hit": hit,
        "facts_matched": sum(groups) if groups else None,
        "facts_expected": len(question.expected) if question.expected else None,
        "silent_failure": silent,
        "context_precision": context_precision(used, rel),
        "context_recall": context_recall(used, rel),
        "context_precision_retrieved": context_precision(retrieved, rel),
        "context_recall_retrieved": context_recall(retrieved, rel),
        "answer_similarity": answer_similarity(run.answer, question.reference),
        "reference_context_recall": reference_context_recall([d.text for d in used], question.reference),
        "n_used": len(used),
        "n_retrieved": len(retrieved),
        "attempts": len(run.attempts),
        "re_routed": "re_route" in path,
        "rewritten": "rewrite_query" in path or "rewrite" in path,  # tool_agent's node is "rewrite" (seed 001)
        "llm_calls": run.llm_calls,
        "tokens": tokens_total,
        "wall_ms": round(float(run.wall_ms), 1),
        "stop_reason": run.stop_reason,
        "quality": best_quality(run),
        "facts_in_context": (None if not question.expected or kind == "uncovered"
                             else key_fact_hit(" ".join(d.text for d in retrieved), question.expected)),
        "answer": run.answer,
        "run_id": run.run_id,
        "error": error,
    }


def best_quality(run: Any) -> float | None:
    """The highest context-quality score any attempt of the run recorded (agentic: the score it compares with its
    threshold; react: its hops' scores); None for a run that records none (naive, crag, self_rag, adaptive,
    tool_agent, a direct answer)."""
    scores = [float(a.quality) for a in run.attempts if a.quality is not None]
    return round(max(scores), 4) if scores else None


# ---- aggregates ---------------------------------------------------------------------------------------------------
def auroc(scores: Sequence[float], positive: Sequence[bool]) -> float | None:
    """Area under the ROC curve: the chance that a positive's score is above a negative's (ties count half);
    None unless both classes are present."""
    pos = [s for s, p in zip(scores, positive) if p]
    neg = [s for s, p in zip(scores, positive) if not p]
    if not pos or not neg:
        return None
    above = sum((a > b) + 0.5 * (a == b) for a in pos for b in neg)
    return above / (len(pos) * len(neg))


# what became of a run with a context-quality score, in the order the Evaluate page's quality chart stacks them
# (answer in context: the retrieved documents hold every key fact; trap: no document can answer)
OUTCOMES: tuple[str, ...] = ("answer in context", "answer not in context", "trap")


def quality_outcome(row: dict[str, Any]) -> str | None:
    """The ``OUTCOMES`` entry of one per-question row, or None for a row that is not scored against it (no quality
    recorded, an error, a question that is neither covered with key facts nor a trap). The label is fixed before the
    run decides to answer or flag (``facts_in_context``), so the decision cannot flatter the score."""
    if row.get("quality") is None or row.get("error"):
        return None
    if row["kind"] == "uncovered":
        return OUTCOMES[2]
    if row["kind"] != "covered" or row.get("facts_in_context") is None:
        return None
    return OUTCOMES[0] if row["facts_in_context"] else OUTCOMES[1]


def quality_auroc(rows: list[dict[str, Any]]) -> float | None:
    """How well the run's own context-quality score tells a context that holds the answer from one that does not:
    AUROC of ``quality`` with the answer in context as positives, and the other covered questions plus trap
    (uncovered) questions as negatives (``quality_outcome``). 1.0: every such run scored above every other, so some
    threshold separates them; 0.5: the score says nothing about it."""
    scored = [(r["quality"], outcome) for r in rows if (outcome := quality_outcome(r))]
    return auroc([q for q, _ in scored], [outcome == OUTCOMES[0] for _, outcome in scored])


def mean(values: Iterable[float | bool | None]) -> float | None:
    """Mean of the values that are not None (bools count as 0/1); None when there are none."""
    vals = [float(v) for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def percentile(values: Iterable[float | None], q: float) -> float | None:
    """Linear-interpolated percentile (q in 0..100) of the non-None values; None when there are none."""
    vals = sorted(float(v) for v in values if v is not None)
    if not vals:
        return None
    if len(vals) == 1:
        return vals[0]
    pos = (len(vals) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return vals[lo] + (vals[hi] - vals[lo]) * (pos - lo)


def _rate(rows: list[dict[str, Any]], key: str, where=lambda r: True) -> float | None:
    return mean(r[key] for r in rows if where(r) and r.get(key) is not None)


def aggregate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-question rows of one variant -> that variant's metrics (None where a metric applies to no question)."""
    ok = [r for r in rows if not r.get("error")]
    covered = lambda r: r["kind"] == "covered"  # noqa: E731
    uncovered = lambda r: r["kind"] == "uncovered"  # noqa: E731

    def rnd(v: float | None, n: int = 4) -> float | None:
        return None if v is None else round(v, n)

    return {
        "n_questions": len(rows),
        "n_errors": len(rows) - len(ok),
        "routing_accuracy": rnd(_rate(ok, "route_correct")),
        "key_fact_hit_rate": rnd(_rate(ok, "hit", covered)),
        "key_fact_hit_rate_all": rnd(_rate(ok, "hit")),
        "facts_in_context_rate": rnd(_rate(ok, "facts_in_context", covered)),
        "abstention_rate": rnd(_rate(ok, "flagged", uncovered)),
        "false_abstention_rate": rnd(_rate(ok, "flagged", covered)),
        "silent_failure_rate": rnd(_rate(ok, "silent_failure")),
        "silent_failure_rate_uncovered": rnd(_rate(ok, "silent_failure", uncovered)),
        "quality_auroc": rnd(quality_auroc(ok)),
        "context_precision": rnd(mean(r["context_precision"] for r in ok)),
        "context_recall": rnd(mean(r["context_recall"] for r in ok)),
        "context_precision_retrieved": rnd(mean(r["context_precision_retrieved"] for r in ok)),
        "context_recall_retrieved": rnd(mean(r["context_recall_retrieved"] for r in ok)),
        "answer_similarity": rnd(mean(r["answer_similarity"] for r in ok)),
        "reference_context_recall": rnd(mean(r["reference_context_recall"] for r in ok)),
        "re_route_rate": rnd(_rate(ok, "re_routed")),
        "rewrite_rate": rnd(_rate(ok, "rewritten")),
        "attempts_mean": rnd(mean(r["attempts"] for r in ok), 3),
        "llm_calls_mean": rnd(mean(r["llm_calls"] for r in ok), 3),
        "llm_calls_total": sum(r["llm_calls"] for r in ok),
        "tokens_mean": rnd(mean(r["tokens"] for r in ok), 1),
        "tokens_total": sum(r["tokens"] for r in ok),
        "wall_ms_mean": rnd(mean(r["wall_ms"] for r in ok), 1),
        "wall_ms_p95": rnd(percentile((r["wall_ms"] for r in ok), 95), 1),
    }


def routing_confusion(rows: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """{expected_route: {actual_route: count}} over rows that have an expected route."""
    matrix: dict[str, dict[str, int]] = {}
    for r in rows:
        if r.get("expected_route") is None or r.get("error"):
            continue
        row = matrix.setdefault(r["expected_route"], {})
        row[r["route"]] = row.get(r["route"], 0) + 1
    return matrix


METRIC_LABELS: dict[str, str] = {
    "routing_accuracy": "routing accuracy",
    "key_fact_hit_rate": "key-fact hit rate (covered)",
    "facts_in_context_rate": "answer in the retrieved documents (covered)",
    "abstention_rate": "abstention rate (uncovered)",
    "false_abstention_rate": "abstained on covered",
    "silent_failure_rate": "silent-failure rate",
    "silent_failure_rate_uncovered": "silent failures on uncovered (traps)",
    "quality_auroc": "quality score AUROC (answer in context vs not)",
    "context_precision": "context precision (used docs)",
    "context_recall": "context recall (used docs)",
    "context_precision_retrieved": "context precision (all retrieved)",
    "context_recall_retrieved": "context recall (all retrieved)",
    "answer_similarity": "answer similarity vs reference (token F1)",
    "reference_context_recall": "reference context recall (non-LLM)",
    "re_route_rate": "re-route rate",
    "rewrite_rate": "rewrite rate",
    "attempts_mean": "attempts (mean)",
    "llm_calls_mean": "model calls (mean)",
    "tokens_mean": "tokens (mean)",
    "wall_ms_mean": "wall ms (mean)",
    "wall_ms_p95": "wall ms (p95)",
    "n_errors": "errors",
}
