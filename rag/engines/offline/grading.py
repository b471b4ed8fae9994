"""grade: CRAG labels (correct / ambiguous / incorrect) for one retrieved document or graph fact."""
from __future__ import annotations

import numpy as np

from rag.engines.offline.coverage import Coverage, _fact_coverage, checkable_terms, coverage_of, question_terms
from rag.engines.offline.rules import (BELOW_CORRECT, GRAPH_FACT_WEIGHTS, INCORRECT_SCORE_CAP, VALUE_EVIDENCE_TOP,
                                       WANTS_NUMBER,
                                       MISSING_NUMBER_AMBIGUOUS_SHARE, SEMANTIC_FILL, SEMANTIC_STRONG)
from rag.engines.offline.semantics import states_number
from rag.engines.offline.temporal import freshness_requirement
from rag.engines.offline.relations import asked_relations
from rag.engines.offline.text import _contains_phrase, _doc_text_for_grading, _norm, _quote, _specific
from rag.types import Grade, Retrieved


class Grader:
    """grade: CRAG labels (correct / ambiguous / incorrect) for one retrieved document or graph fact.

    Part of ``OfflineEngine``."""

    def grade(self, question: str, doc: Retrieved) -> Grade:
        if doc.tool == "sql":  # a SQL result is judged by its query, not by its wording (rag.tools.sql, seed 002)
            from rag.tools.sql import grade_sql_result

            return grade_sql_result(doc)
        return self._fresh_enough(question, doc, self._grade(question, doc))

    def _fresh_enough(self, question: str, doc: Retrieved, grade: Grade) -> Grade:
        """Time relative to today: "this year" / "올해" / "今年" needs today's year in the document; "latest" /
        "최신" / "最新" cannot be confirmed by a document at all — either way it is at most ambiguous."""
        if grade.label != "correct":
            return grade
        required, unconfirmable = freshness_requirement(question, self.today())
        text = _doc_text_for_grading(doc)
        lacking = [y for y in required if y not in text]
        if not lacking and not unconfirmable:
            return grade
        why = (f"the question asks about {', '.join(lacking)} (relative to today, {self.today().isoformat()}) and the "
               "document does not state it" if lacking else
               f"'{unconfirmable[0]}' asks for the newest information, which a stored document cannot confirm")
        score = min(grade.score, self.rules.correct_score - BELOW_CORRECT)
        return Grade(label="ambiguous", score=round(score, 3), reason=f"{grade.reason}; but {why} → ambiguous")

    def _grade(self, question: str, doc: Retrieved) -> Grade:
        r = self.rules
        terms, focus = question_terms(question)
        text = _doc_text_for_grading(doc)
        cov = coverage_of(terms, text, focus)
        if doc.tool == "graph":
            return self._grade_fact(question, doc, terms, focus, cov)
        sim, _origin = self.similarity(question, doc)
        lo, hi = self.similarity_range()
        sim_n = min(1.0, max(0.0, (sim - lo) / (hi - lo)))
        ev = self.sentence_evidence(question, [doc])[0]
        sem = ev.best_score
        sides = self.side_scores(question, [doc])[0]
        if sides and all(len(x) for x in sides):
            # a comparison: the document answers it when it speaks to each side (its weaker side counts)
            sem = max(sem, min(float(x.max()) for x in sides))
        # lexical evidence counts only for the key terms this text could contain as written (a Korean word is no
        # evidence for or against an English sentence); the rest of the judgement is the semantic signal
        check, share = checkable_terms(terms, question, text, cov)
        lex = coverage_of(check, text, focus) if check else Coverage([], {}, {}, focus)
        lex_score = lex.score if check else 0.0
        cov_eff = share * (lex_score + (1 - lex_score) * SEMANTIC_FILL * sem) + (1 - share) * sem
        sim_eff = share * sim_n + (1 - share) * sem
        score = r.sim_weight * sim_eff + (1 - r.sim_weight) * cov_eff
        best = ev.units[ev.best].text if ev.best >= 0 else ""
        basis = f"similarity {sim:.2f}, {cov.summary()}"
        if share < 1.0:
            basis += (f"; semantic match {sem:.2f} (best sentence: '{best[:60]}'), "
                      f"{share:.0%} of the key terms checkable in this text's language")
        score = round(min(1.0, max(0.0, score)), 3)

        if lex.content_terms and lex.content_hits == 0 and not (share < 1.0 and sem >= SEMANTIC_STRONG):
            label, why = "incorrect", "none of the asked-about words " + _quote(lex.content_terms, 4)
            score = min(score, INCORRECT_SCORE_CAP)
        elif not terms and score >= r.correct_score:
            label, why = "correct", "no key terms in the question; similarity decides"
        elif cov.missing_numbers:
            label = "ambiguous" if score >= r.ambiguous_score * MISSING_NUMBER_AMBIGUOUS_SHARE else "incorrect"
            why = f"lacks {_quote(cov.missing_numbers)} from the question"
            score = min(score, r.correct_score - BELOW_CORRECT)
        elif score >= r.correct_score and cov_eff >= r.correct_coverage:
            label, why = "correct", f"score {score:.2f} ≥ {r.correct_score}"
        elif score >= r.ambiguous_score:
            label = "ambiguous"
            why = (f"score {score:.2f} < {r.correct_score}" if score < r.correct_score
                   else f"coverage {cov_eff:.2f} < {r.correct_coverage}")
        else:
            label, why = "incorrect", f"score {score:.2f} < {r.ambiguous_score}"
        if label == "correct" and share < 1.0 and WANTS_NUMBER.search(_norm(question)):
            # judged (partly) by meaning and asked for a value: a sentence that matches it must state one
            # ("how much is the licence" is not answered by "licensed per deployment")
            top = [j for j in np.argsort(-ev.scores)[:VALUE_EVIDENCE_TOP] if ev.scores[j] > 0]
            if not any(states_number(ev.units[j].text) for j in top):
                label, why = "ambiguous", (f"asks for a value and none of its {len(top)} best-matching sentences "
                                           "states one")
                score = min(score, r.correct_score - BELOW_CORRECT)
        return Grade(label=label, score=round(score, 3), reason=f"{basis} → {label}: {why}")

    def _grade_fact(self, question: str, doc: Retrieved, terms: list[str], focus: set[str], cov: Coverage) -> Grade:
        """A graph fact: does it touch an entity of the question, and is its relation one the question asks?"""
        r = self.rules
        meta = doc.metadata or {}
        hop = meta.get("hop")
        hop = int(hop) if isinstance(hop, (int, float)) and hop >= 1 else 1
        triple = meta.get("triple") or []
        predicate = triple[1] if len(triple) == 3 else ""
        asked = asked_relations(question)
        cov = _fact_coverage(terms, focus, doc)
        named = self._fact_touches_question(question, doc)
        fills = predicate in asked
        w_named, w_fills, w_cov = GRAPH_FACT_WEIGHTS
        score = w_named * named + w_fills * fills + w_cov * cov.score
        score = round(min(1.0, score / (1 + r.graph_hop_weight * (hop - 1))), 3)
        basis = (f"graph fact (hop {hop}, {predicate or 'no predicate'}): "
                 f"{'touches' if named else 'does not touch'} a question entity, relation "
                 f"{'is' if fills else 'is not'} asked ({', '.join(sorted(asked)) or 'none detected'}), {cov.summary()}")
        if fills and named and not cov.missing_numbers:
            label, why = "correct", "asked relation of a question entity"
            score = max(score, r.correct_score)
        elif fills:
            label, why = "ambiguous", "asked relation, but not of an entity named in the question (evaluate checks the path)"
            score = min(max(score, r.ambiguous_score), r.correct_score - BELOW_CORRECT)
        elif named and cov.content_hits > 0:
            label, why = "ambiguous", "names a question entity, but its relation is not the one asked"
            score = min(max(score, r.ambiguous_score), r.correct_score - BELOW_CORRECT)
        elif cov.content_terms and cov.content_hits == 0:
            label, why = "incorrect", "none of the asked-about words " + _quote(cov.content_terms, 4)
            score = min(score, INCORRECT_SCORE_CAP)
        else:
            label = "ambiguous" if score >= r.ambiguous_score else "incorrect"
            why = f"score {score:.2f}"
        return Grade(label=label, score=round(score, 3), reason=f"{basis} → {label}: {why}")

    @staticmethod
    def _fact_touches_question(question: str, doc: Retrieved) -> bool:
        meta = doc.metadata or {}
        triple = meta.get("triple") or []
        ends = [triple[0], triple[2]] if len(triple) == 3 else []
        q_entities = {_norm(e) for e in meta.get("question_entities") or [] if _specific(e)}
        q = _norm(question)
        return any(_specific(e) and (_norm(e) in q_entities or _contains_phrase(q, e)) for e in ends)
