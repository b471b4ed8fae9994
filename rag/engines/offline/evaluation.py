"""evaluate: context quality 0..1 of the graded documents together."""
from __future__ import annotations

import re

from rag.engines.offline.coverage import (Coverage, _fact_coverage, checkable_terms, coverage_of, credit_months,
                                          question_terms)
from rag.engines.offline.relations import asked_relations, graph_path
from rag.engines.offline.parts import asked_parts
from rag.engines.offline.answertype import STRONG, WEAK, AskedType, asked_type, fit
from rag.engines.offline.rules import GRAPH_QUALITY_FLOOR, NO_VALUE_QUALITY, SEMANTIC_FILL, TYPED_LEAD
from rag.engines.offline.semantics import question_intents
from rag.engines.offline.text import (_doc_text_for_grading, _is_number, _label_of, _quote, _sentences, is_fact,
                                      language_of)
from rag.types import Grade, Quality, Retrieved, Typed


_LETTER = re.compile(r"[^\W\d_]")


class ContextEvaluator:
    """evaluate: context quality 0..1 of the graded documents together (part of ``OfflineEngine``)."""

    def _support(self, label: str | None) -> float:
        return 1.0 if label == "correct" else self.rules.ambiguous_support if label == "ambiguous" else 0.0

    def evaluate(self, question: str, docs: list[Retrieved], grades: list[Grade]) -> Quality:
        r = self.rules
        if not docs:
            return Quality(0.0, "no documents retrieved → quality 0.00")
        terms, focus = question_terms(question)
        supports = [self._support(_label_of(grades, i)) for i in range(len(docs))]
        n_correct = sum(1 for s in supports if s == 1.0)
        n_amb = sum(1 for i in range(len(docs)) if _label_of(grades, i) == "ambiguous")
        best = max((s * grades[i].score for i, s in enumerate(supports) if s > 0), default=0.0)
        share = sum(supports) / len(docs)
        credit = {t: 0.0 for t in terms}
        checkable: set[str] = set()  # terms some supporting document could contain as written
        sem_best = 0.0
        typed_from = ""  # the document whose typed semantic evidence gave sem_best (grading.confirmed_semantic)
        typed_docs: dict[str, float] = {}  # the correct documents with typed evidence and its score (Quality.typed)
        # a graph fact is judged by its triple and evidence; a sentence the graph search started from (a described
        # entity, rag.tools.graph) is judged as any retrieved sentence, by meaning across languages too
        facts = {i for i, d in enumerate(docs) if is_fact(d)}
        vector_support = [i for i, s in enumerate(supports) if s > 0 and i not in facts]
        evidence = dict(zip(vector_support, self.sentence_evidence(question, [docs[i] for i in vector_support])))
        for i, s in enumerate(supports):
            if s <= 0:
                continue
            if i in facts:
                cov = _fact_coverage(terms, focus, docs[i])
                checkable |= set(terms)
            else:
                text = _doc_text_for_grading(docs[i])
                cov = credit_months(question, text, coverage_of(terms, text))
                check, check_share = checkable_terms(terms, question, text, cov)
                checkable |= set(check)
                # typed semantic evidence (grading.Grader.confirmed_semantic): the same confirmation as the grade
                typed, _ = self.confirmed_semantic(question, evidence[i], check, check_share)
                doc_sem = s * max(evidence[i].best_score, typed)
                if typed > 0 and s >= 1.0:
                    name = docs[i].source or docs[i].id
                    typed_docs[name] = max(typed, typed_docs.get(name, 0.0))
                if doc_sem > sem_best:
                    sem_best = doc_sem
                    typed_from = (docs[i].source or docs[i].id) if typed > evidence[i].best_score else ""
            for t in terms:
                credit[t] = max(credit[t], s * cov.credit.get(t, 0.0))
        weights = {t: Coverage(terms, {}, {}, focus).weight(t) for t in terms}
        total = sum(weights.values())
        union = sum(weights[t] * credit[t] for t in terms) / total if total else (1.0 if best > 0 else 0.0)
        content = [t for t in terms if not _is_number(t)]
        lexical_share = (sum(1 for t in content if t in checkable) / len(content)) if content else 1.0
        if lexical_share >= 1.0 and sem_best > 0:
            # the same wording rule as grading: meaning fills SEMANTIC_FILL of what the key terms miss
            union = union + (1 - union) * SEMANTIC_FILL * sem_best
        if lexical_share < 1.0:
            # key terms no supporting document could contain as written (another language) are judged by meaning:
            # the lexical union over the checkable terms, blended with the best semantic sentence match
            check_total = sum(weights[t] for t in terms if t in checkable)
            lex_union = (sum(weights[t] * credit[t] for t in terms if t in checkable) / check_total
                         if check_total else 0.0)
            union = lexical_share * lex_union + (1 - lexical_share) * sem_best
        quality = round(r.quality_best * best + r.quality_coverage * union + r.quality_share * share, 3)
        missing = [t for t in terms if credit[t] <= 0 and (t in checkable or not checkable)]
        reason = (f"{r.quality_best}×best {best:.2f} + {r.quality_coverage}×coverage {union:.2f} + "
                  f"{r.quality_share}×share {share:.2f} = {quality:.2f} "
                  f"({n_correct} correct, {n_amb} ambiguous of {len(docs)})")
        if lexical_share < 1.0:
            reason += f"; coverage blends key terms ({lexical_share:.0%} checkable) with semantic match {sem_best:.2f}"
        if typed_from:
            reason += (f"; semantic match {sem_best:.2f} from typed evidence in {typed_from} (a sentence matching by "
                       "meaning states the asked value)")
        asked = asked_relations(question)
        if asked and any(d.tool == "graph" for d in docs):
            # graph facts answer a chain: what counts is whether every asked relation is reached from the
            # question's entities, not how good the single best fact is
            filled, chain, _ = graph_path(question, docs, supports)
            # … by the words of the clause that asks, where something comes before it: a lead-in names the event the
            # question starts from ("2026年3月 … 那次，"), which no relation states (the same weights, over those words)
            asking = [t for t in terms if focus and t in focus]
            if 0 < len(asking) < len(terms):
                union = sum(weights[t] * credit[t] for t in asking) / sum(weights[t] for t in asking)
            quality = round(chain * (GRAPH_QUALITY_FLOOR + (1 - GRAPH_QUALITY_FLOOR) * union), 3)
            shown = ", ".join(f"{p} {'✓' if filled.get(p, 0) >= 1 else '½ (related_to)' if filled.get(p) else '✗'}"
                              for p in sorted(asked))
            reason = (f"graph path: coverage of asked relations {chain:.2f} ({shown}) × (0.5 + 0.5×key-term coverage "
                      f"{union:.2f}) = {quality:.2f} ({n_correct} correct, {n_amb} ambiguous of {len(docs)})")
        unanswered = self._no_asked_value(question, [d for d, s in zip(docs, supports) if s > 0])
        if unanswered:
            quality = round(quality * NO_VALUE_QUALITY, 3)
            reason += f"; × {NO_VALUE_QUALITY}: {unanswered}"
        if missing:
            reason += f"; not covered: {_quote(missing, 4)}"
        capped = _capped_reasons(grades)
        if capped:
            # glass box: the grading rule that kept a document below "correct" although its score passed
            reason += "; held at ambiguous: " + "; ".join(capped)
        typed, lead = leading_typed(question, [Typed(n, round(v, 3)) for n, v in typed_docs.items()])
        if lead:
            reason += f"; {lead}"
        return Quality(min(1.0, quality), reason, typed=tuple(typed))

    @staticmethod
    def _no_asked_value(question: str, supporting: list[Retrieved]) -> str:
        """Why the supporting documents cannot answer ("" when they may): the question asks for a kind of value (a
        number of days, an amount, a date …: ``answertype.asked_type``; not a person or a place, whose plain names
        its patterns miss) and no sentence of theirs states one (``fit`` below WEAK; below STRONG where the question
        names a unit and the sentence is in the question's language) — the check behind the answer's "no quoted
        sentence states the asked …", made before answering. Only for passages (a graph fact answers a relation; a
        table row or a web result is read otherwise)."""
        if not supporting or any(d.tool != "vector" for d in supporting):
            return ""
        parts = asked_parts(question)
        # each asked part of a question that asks several things needs its own value ("몇 시부터고, 하루에 얼마예요?")
        for part in ([question] if len(parts) < 2 else parts):
            asked = asked_type(part)
            if not asked.value:
                continue
            if not _states(asked, supporting, language_of(question)):
                what = f"the asked {asked.label}" + (f" of '{part}'" if part != question else "")
                return f"no sentence of the {len(supporting)} supporting document(s) states {what}"
        return ""


def _states(asked: AskedType, supporting: list[Retrieved], own: str) -> bool:
    """Does a sentence of the supporting documents state a value of the asked kind? A bare number ("3.", "2층") is no
    evidence where the question names a unit (days, people …) — in the question's own language: another language
    counts in other words ("1,240 hold requests" for "몇 건")."""
    for d in supporting:
        for sentence in _sentences(d.text):
            if not _LETTER.search(sentence):
                continue  # a list marker ("3.") states nothing
            if fit(asked, sentence) >= (STRONG if asked.units and language_of(sentence) == own else WEAK):
                return True
    return False


def leading_typed(question: str, typed: list[Typed]) -> tuple[list[Typed], str]:
    """The typed evidence best first, and why only the first counts ("" when all do): several documents state a value
    of the asked kind, and one sentence matches the question clearly better (by rules.TYPED_LEAD) than the others'
    while the question asks one value. The others are then near misses stating such a value for something else."""
    typed = sorted(typed, key=lambda t: -t.score)
    if len(typed) < 2 or round(typed[0].score - typed[1].score, 3) < TYPED_LEAD or not _asks_one_value(question):
        return typed, ""
    return typed[:1], (f"typed evidence in {typed[0].source} ({typed[0].score:.2f}) leads "
                       f"{_quote([t.source for t in typed[1:]], 2)} ({typed[1].score:.2f}) by ≥ {TYPED_LEAD:.2f}: "
                       "it alone answers")


def _asks_one_value(question: str) -> bool:
    """A question that asks one thing: not a comparison ("각각", "compare", "分别") and one asked part
    (``parts.asked_parts``). One sentence cannot answer several, so no typed evidence leads there."""
    return "comparison" not in question_intents(question) and len(asked_parts(question)) <= 1


# reasons of grading rules that hold a document at "ambiguous" whatever its score (grading.Grader._asked_value_missing)
_CAP_MARKERS = ("the asked attribute", "the sentences that state", "asks for a", "asks for an")


def _capped_reasons(grades: list[Grade]) -> list[str]:
    out: list[str] = []
    for g in grades or []:
        if g is None or g.label != "ambiguous" or "→ ambiguous: " not in g.reason:
            continue
        why = g.reason.rsplit("→ ambiguous: ", 1)[1]
        if why.startswith(_CAP_MARKERS) and why not in out:
            out.append(why)
    return out[:2]
