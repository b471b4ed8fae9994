"""F1–F7: the failure taxonomy of seed 001, labelled on every run from its recorded trace by transparent rules.

| code | failure (seed 001) | rule on the trace |
|---|---|---|
| F1 | irrelevant documents reached the generator | a document graded ``incorrect`` is among the generator's ``doc_ids``; *unchecked* when they were never graded one by one |
| F2 | relevant and noisy documents mixed | the generator got a ``correct`` document together with ``ambiguous`` / ``incorrect`` ones; *unchecked* when ungraded |
| F3 | answer sentences not supported by the context | the last hallucination check left unsupported sentences; otherwise a claim sentence of the answer whose key terms are < 60 % in the generator's context, or whose number is not there |
| F4 | the answer does not address the question | the last answer grader said ``not_useful`` while the run still answered; without an answer grader: an answer made from documents holds none of the asking clause's words (glossary translations count) |
| F5 | a retry loop hit its bound | stop reason ``budget_exhausted`` / ``repetition`` / ``attempts_guard`` / ``generation_budget`` / ``recursion_limit`` |
| F6 | retrieval when none was needed | the run retrieved although the offline router's rule for "no retrieval needed" (translation, arithmetic, code syntax) matches the question |
| F7 | not answerable from the documents, and the run did not say so | it answered (no abstention, no partial answer) from documents none of which was graded ``correct``; *unchecked* when ungraded |

Each label carries a one-line reason and the 1-based numbers of the steps it points at. ``observed`` labels are
what the trace shows; ``unchecked`` ones say the variant had no check that would have shown it (e.g. naive never
grades, so F1 cannot be ruled out). Groups after seed 001: F1/F2 retrieval quality, F3/F4 generation, F5 the loop
itself, F6/F7 whether retrieval was the right move at all.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from rag.trace import DocRecord, Run, Step
from rag.types import context_of

CODES: dict[str, tuple[str, str]] = {
    "F1": ("irrelevant documents reached the generator", "무관한 문서가 생성기에 들어감"),
    "F2": ("relevant and noisy documents mixed", "관련 문서와 노이즈가 섞임"),
    "F3": ("answer sentences not supported by the context", "근거 없는 문장(환각)"),
    "F4": ("the answer does not address the question", "동문서답"),
    "F5": ("a retry loop hit its bound", "재시도 루프가 상한에 걸림"),
    "F6": ("retrieval when none was needed", "필요 없는 검색"),
    "F7": ("not answerable from the documents, and the run did not say so", "문서로 답할 수 없는데 그렇다고 말하지 않음"),
}
BOUND_STOPS = {"budget_exhausted": "the attempt budget (max_attempts)", "repetition": "repetition detection",
               "attempts_guard": "CRAG's attempts guard", "generation_budget": "the generation budget",
               "recursion_limit": "recursion_limit"}
CHECK_NODES = ("check_hallucination",)
ANSWER_GRADE_NODES = ("grade_answer",)
BUNDLE_MARK = "graded with the whole tool result"


@dataclass
class Failure:
    code: str
    title: str
    level: str  # observed | unchecked
    reason: str
    steps: list[int] = field(default_factory=list)  # 1-based step numbers

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _answer_step(run: Run) -> Step | None:
    from rag.variants import registry

    nodes = set(registry.answer_nodes(run.variant) or ()) | {"generate", "partial_answer", "direct_generate"}
    for step in reversed(run.steps):
        if step.node in nodes and step.status != "failed":
            return step
    return None


def _given(run: Run, step: Step | None) -> list[DocRecord]:
    if step is None or not isinstance(step.inputs.get("doc_ids"), list):
        return []
    # one record per id: the latest usable grade (the generator took the document from an attempt where it was
    # usable), else the latest grade, else the ungraded record — a document graded incorrect in attempt 1 and
    # correct in attempt 2 did not reach the generator as an incorrect one
    by_id: dict[str, DocRecord] = {}
    # a chunk read as context next to a usable one (rag.variants.base.with_context_neighbours) is the context of a
    # graded document, not a document of its own that skipped grading: it raises no F-label
    for d in sorted((r for r in run.documents if not context_of(r)), key=lambda r: r.attempt):
        held = by_id.get(d.id)
        usable = d.grade in ("correct", "ambiguous")
        if held is None or d.grade is not None and (usable or held.grade not in ("correct", "ambiguous")):
            by_id[d.id] = d
    return [by_id[i] for i in dict.fromkeys(str(x) for x in step.inputs["doc_ids"]) if i in by_id]


def _grading_steps(run: Run, ids: set[str]) -> list[int]:
    return [s.index + 1 for s in run.steps if any(d.id in ids and d.grade for d in s.documents)]


def _retrieved(run: Run) -> list[Step]:
    return [s for s in run.steps if s.documents and s.inputs.get("query") is not None]


def label_run(run: Run) -> list[Failure]:
    """Every F-label the trace supports (observed) or cannot rule out (unchecked), in code order."""
    if run.error:
        return []
    out: list[Failure] = []
    answer_step = _answer_step(run)
    given = _given(run, answer_step)
    answered = not run.abstained and not run.partial
    at = [answer_step.index + 1] if answer_step else []

    def add(code: str, level: str, reason: str, steps: list[int]) -> None:
        out.append(Failure(code, CODES[code][0], level, reason, sorted(set(steps))))

    graded = [d for d in given if d.grade is not None and not (d.grade_reason or "").startswith(BUNDLE_MARK)]
    ungraded = [d for d in given if d not in graded]
    # F1 / F2: what reached the generator
    bad = [d for d in graded if d.grade == "incorrect"]
    if bad:
        add("F1", "observed", f"{len(bad)} document(s) graded incorrect reached the generator "
                              f"({', '.join(d.source for d in bad[:3])})", _grading_steps(run, {d.id for d in bad}) + at)
    elif ungraded and not run.abstained:
        how = "graded only as one bundle" if any((d.grade_reason or "").startswith(BUNDLE_MARK) for d in ungraded) \
            else "never graded"
        add("F1", "unchecked", f"{len(ungraded)} document(s) reached the generator {how}: an irrelevant one "
                               "cannot be ruled out", at)
    correct = [d for d in graded if d.grade == "correct"]
    noisy = [d for d in graded if d.grade in ("ambiguous", "incorrect")]
    if correct and noisy:
        add("F2", "observed", f"{len(correct)} correct document(s) mixed with {len(noisy)} ambiguous/incorrect "
                              "one(s) in the generator's context", _grading_steps(run, {d.id for d in noisy}) + at)
    elif len(ungraded) > 1 and not run.abstained:
        add("F2", "unchecked", f"{len(ungraded)} documents reached the generator without a per-document grade", at)
    # F3: unsupported sentences
    checks = [s for s in run.steps if s.node in CHECK_NODES]
    if checks:
        last = checks[-1]
        unsupported = last.output.get("unsupported") or []
        if unsupported and not run.abstained:
            add("F3", "observed", f"the last hallucination check found {len(unsupported)} unsupported sentence(s), "
                                  f"e.g. {str(unsupported[0])[:80]!r}", [last.index + 1])
    elif answered and run.generator_context.strip() and given:
        from rag.engines.offline.coverage import coverage_of, question_terms
        from rag.engines.offline.critics import SUPPORT_MIN, claim_sentences

        bare = []
        for sentence in claim_sentences(run.answer):
            terms, _ = question_terms(sentence)
            cov = coverage_of(terms, run.generator_context) if len(terms) >= 2 else None
            if cov is not None and (cov.score < SUPPORT_MIN or cov.missing_numbers):
                bare.append(sentence)
        if bare:
            add("F3", "observed", f"{len(bare)} answer sentence(s) have under {SUPPORT_MIN:.0%} of their key terms in "
                                  f"the generator's context, e.g. {bare[0][:80]!r}", at)
    # F4: the answer grader's last word
    grades = [s for s in run.steps if s.node in ANSWER_GRADE_NODES]
    if grades and grades[-1].output.get("label") == "not_useful" and answered:
        add("F4", "observed", f"the answer grader: {grades[-1].reason[:120]}", [grades[-1].index + 1])
    elif not grades and answered and given:
        from rag.engines.offline.coverage import coverage_of, question_terms

        terms, focus = question_terms(run.question)
        cov = coverage_of(terms, run.answer, focus)
        if cov.content_terms and cov.content_hits == 0:
            add("F4", "observed", "the answer from the documents holds none of the asked-about words "
                                  f"({', '.join(repr(t) for t in cov.content_terms[:4])})", at)
    # F5: a loop bound ended the run
    if run.stop_reason in BOUND_STOPS:
        loop_steps = [s.index + 1 for s in run.steps if s.decision in ("partial_answer", "not_found", "stopped")
                      or s.node in ("recursion_limit", "partial_answer", "not_found")]
        add("F5", "observed", f"stopped by {BOUND_STOPS[run.stop_reason]} after {len(run.attempts)} attempt(s)",
            loop_steps or [len(run.steps)])
    # F6: retrieval for a question that needs none
    retrievals = _retrieved(run)
    if retrievals:
        rule = _no_retrieval_rule(run.question)
        if rule:
            add("F6", "observed", f"retrieved {len(retrievals)} time(s) although {rule}",
                [s.index + 1 for s in retrievals])
    # F7: answered without evidence that answers
    if answered and given:
        if graded and not correct and not ungraded:
            add("F7", "observed", f"answered from {len(given)} document(s), none graded correct, without saying the "
                                  "documents do not answer it", at)
        elif ungraded and not graded:
            add("F7", "unchecked", "answered from ungraded documents: whether they answer the question was never "
                                   "checked", at)
    return out


def _no_retrieval_rule(question: str) -> str | None:
    """The offline router's reason when its rules say the question needs no retrieval, else None."""
    from rag.config import Settings
    from rag.engines.offline import OfflineEngine

    decision = OfflineEngine(Settings.from_env()).classify(question, [])
    if decision.strategy == "direct":
        return f"the offline router's rule says no retrieval is needed ({decision.reason})"
    return None


def observed_codes(failures: list[Failure]) -> list[str]:
    return [f.code for f in failures if f.level == "observed"]


def summary(failures: list[Failure]) -> str:
    """'F1 F5 (F2?)' — observed codes, unchecked ones with a question mark; '-' when none."""
    parts = observed_codes(failures) + [f"({f.code}?)" for f in failures if f.level == "unchecked"]
    return " ".join(parts) or "-"


def failure_rates(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    """Share of runs (without an error) that carry each observed label; rows hold ``failures`` (observed codes)."""
    ok = [r for r in rows if not r.get("error") and isinstance(r.get("failures"), list)]
    return {code: (round(sum(code in r["failures"] for r in ok) / len(ok), 4) if ok else None) for code in CODES}


def family_table(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The seed-001-style table for an evaluation report: per variant, the minimum model calls counted from its
    code path (a function of N documents), the failures it prevents and leaves open (its declaration), and the
    measured figures beside them (mean model calls, F-label rates, key-fact hits, silent failures)."""
    from rag.variants import registry

    out = []
    for name, metrics in report.get("variants", {}).items():
        declared = registry.family_row(name) if name in registry.VARIANTS else {"label": name, "min_calls": "?",
                                                                                 "prevents": {}, "leaves_open": {}}
        rates = report.get("failures", {}).get(name, {})
        out.append({"variant": name, "label": declared["label"], "min_calls (code path, N docs)": declared["min_calls"],
                    "prevents": " ".join(sorted(declared["prevents"])) or "-",
                    "leaves open": " ".join(sorted(declared["leaves_open"])) or "-",
                    "model calls (mean)": metrics.get("llm_calls_mean"),
                    "key-fact hit rate": metrics.get("key_fact_hit_rate"),
                    "silent-failure rate": metrics.get("silent_failure_rate"),
                    **{f"{code} observed": rates.get(code) for code in CODES}})
    return out
