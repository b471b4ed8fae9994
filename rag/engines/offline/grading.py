"""grade: CRAG labels (correct / ambiguous / incorrect) for one retrieved document or graph fact."""
from __future__ import annotations

import re

import numpy as np

from rag.engines.offline.answertype import (AMOUNT, STRONG, WEAK, answers, asked_for_grading, fit, names_organisation,
                                            states_cause)
from rag.engines.offline.attribute import asked_attribute
from rag.engines.offline.parts import asked_parts
from rag.engines.offline.coverage import (Coverage, _fact_coverage, _name_like, checkable_terms,
                                          coverage_of, credit_months, prepared_text, question_terms, term_script, text_scripts)
from rag.engines.offline.rules import (BELOW_CORRECT, COOCCUR_MIN_SHARE, COOCCUR_WINDOW, GRAPH_FACT_WEIGHTS, INCORRECT_SCORE_CAP, VALUE_EVIDENCE_TOP,
                                       PRESENT_MARKERS, PRESENT_STATED, WANTS_NUMBER,
                                       MISSING_NUMBER_AMBIGUOUS_SHARE, SEMANTIC_FILL, SEMANTIC_STRONG,
                                       TYPED_CONFIRM_FILL, TYPED_MIN_SEMANTIC)
from rag.engines.offline.semantics import heading_matches, question_intents, states_number
from rag.engines.offline.temporal import freshness_requirement
from rag.engines.offline.relations import asked_relations
from rag.textutil import english_stem
from rag.engines.offline.ranges import _EN
from rag.engines.offline.wordforms import korean_topics
from rag.engines.offline.text import (_contains_phrase, _doc_text_for_grading, _is_number, _norm,
                                      _quote, _specific, is_fact, stated_numbers)
from rag.types import Grade, Retrieved


# language: "how many seats / rooms / trucks": the thing counted, when it is no unit (answertype gives such a count
# no unit, or "item", and any count — "five people" — would state it). An auxiliary after "how many" ("how many are
# there") names nothing; an adjective ("how many different rooms") is passed over
_HOW_MANY = re.compile(r"\bhow many ([a-z][a-z\-]{2,})(?:\s+([a-z][a-z\-]{2,}))?", re.I)
_NOT_COUNTED = frozenset("of more times people persons are were was have has had did does can could will would should "
                         "there".split())
_COUNT_ADJECTIVES = frozenset("different separate other new additional extra total free available main".split())
_COUNT = re.compile(r"\d[\d,.]*|\b(?:" + "|".join(sorted(_EN, key=len, reverse=True)) + r"|dozen|hundred|thousand)\b",
                    re.I)


def _counted_noun(question: str) -> str:
    m = _HOW_MANY.search(question)
    if not m:
        return ""
    word = m.group(1).lower()
    if word in _COUNT_ADJECTIVES and m.group(2):
        word = m.group(2).lower()
    return "" if word in _NOT_COUNTED or word in _COUNT_ADJECTIVES else word


def _counts(noun: str, sentence: str, header: str = "") -> bool:
    """The sentence counts the thing: the word or its stem within three words after a number or number word ("36
    bunks", "six cages", "a 132-seat screen") or just before it ("Rooms: 120", "the hall seats 132"); a table row
    counts it when its header (``header``: the row above, the section heading) names it."""
    stem = english_stem(noun)
    for m in _COUNT.finditer(sentence):
        after = re.findall(r"[a-z]+", sentence[m.end():].lower())[:3]
        before = re.findall(r"[a-z]+", sentence[:m.start()].lower())[-3:]
        if any(english_stem(w) == stem for w in after + before):
            return True
    return sentence.lstrip().startswith("|") and any(english_stem(w) == stem for w in re.findall(r"[a-z]+",
                                                                                                  header.lower()))


# language: the question word after a topic in the same clause ("학생은 연회비를 얼마 내요?"): the topic names whom or what
# the asked value is for; a Korean text that never names it states the value for something else. Not every question
# word of textutil.QUESTION_WORDS_KO: after "어떤" the topic is often said otherwise in the text ("암호는 어떤 주기로"
# against "비밀번호": a paraphrase flagged, measured in the thirty-fourth session)
_ASKED_AFTER_TOPIC = re.compile(r"^[^.?!。？！,，]*?(?:얼마|몇|언제|누가|누구|어디|무엇|뭐|어떻게|어느|무슨)")


def _topic_missing(question: str, terms: list[str], text: str) -> str:
    """Why the document cannot answer for the asking clause's topic ("" when it can or there is none). A question
    that asks several things is left alone: a document may answer another part, about another topic."""
    if len(asked_parts(question)) > 1 or "ko" not in text_scripts(text):
        return ""
    for word, end in korean_topics(question):
        # the key term it gave (particles are stripped alike: 어린이는 → 어린)
        topic = next((t for t in terms if len(t) >= 2 and word.startswith(t)), "")
        if topic and _ASKED_AFTER_TOPIC.match(question[end:]) and not coverage_of([topic], text).covered:
            return f"the asking clause's topic '{topic}' is not in the document"
    return ""


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
        # "지금 / currently / 目前": a document that states the present itself ("2026년 11월 현재") answers it
        unconfirmable = [m for m in unconfirmable if not (m in PRESENT_MARKERS and PRESENT_STATED.search(text))]
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
        cov = credit_months(question, text, coverage_of(terms, text, focus))
        if is_fact(doc):
            return self._grade_fact(question, doc, terms, focus, cov)
        sim, _origin = self.similarity(question, doc)
        lo, hi = self.similarity_range()
        sim_n = min(1.0, max(0.0, (sim - lo) / (hi - lo)))
        ev = self.sentence_evidence(question, [doc])[0]
        cov = _numbers_in_headings(question, cov, ev)
        sem = ev.best_score
        sides = self.side_scores(question, [doc])[0]
        if sides and all(len(x) for x in sides):
            # a comparison: the document answers it when it speaks to each side (its weaker side counts)
            sem = max(sem, min(float(x.max()) for x in sides))
        # lexical evidence counts only for the key terms this text could contain as written (a Korean word is no
        # evidence for or against an English sentence); the rest of the judgement is the semantic signal
        check, share = checkable_terms(terms, question, text, cov)
        typed, typed_note = self.confirmed_semantic(question, ev, check, share)
        sem = max(sem, typed)
        lex = (_numbers_in_headings(question, credit_months(question, text, coverage_of(check, text, focus)), ev)
               if check else Coverage([], {}, {}, focus))
        lex_score = lex.score if check else 0.0
        cov_eff = share * (lex_score + (1 - lex_score) * SEMANTIC_FILL * sem) + (1 - share) * sem
        sim_eff = share * sim_n + (1 - share) * sem
        score = r.sim_weight * sim_eff + (1 - r.sim_weight) * cov_eff
        best = ev.units[ev.best].text if ev.best >= 0 else ""
        basis = f"similarity {sim:.2f}, {cov.summary()}"
        if share < 1.0:
            basis += (f"; semantic match {sem:.2f} (best sentence: '{best[:60]}'), "
                      f"{share:.0%} of the key terms checkable in this text's language")
        if typed_note:
            basis += f"; {typed_note}"
        score = round(min(1.0, max(0.0, score)), 3)

        # "Everyone said it was truck 4's fridge. Was it, or what actually went wrong?": the asking clause's words
        # ('actually', 'went', 'wrong') often name no matter, only that a cause is asked, and the statement beside it
        # names the event. The rule does not tell such words from matter the text lacks: a text that holds the
        # statement's words and states a cause is let through, but never graded above ambiguous (below)
        cause_met = bool(lex.content_terms) and lex.content_hits == 0 and _states_the_asked_cause(
            question, terms, focus, lex, ev)
        if cause_met:
            basis += "; none of the asking clause's words, but the question asks for a cause and this text states one"
        if (lex.content_terms and lex.content_hits == 0 and not cause_met
                and not (share < 1.0 and sem >= SEMANTIC_STRONG)):
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
        if label == "correct":
            demoted = ("no word of the asking clause confirms which cause is asked" if cause_met
                       else _topic_missing(question, terms, text) or self._asked_value_missing(question, text, ev,
                                                                                                check, share))
            if demoted:
                label, why = "ambiguous", demoted
                score = min(score, r.correct_score - BELOW_CORRECT)
        return Grade(label=label, score=round(score, 3), reason=f"{basis} → {label}: {why}")

    def confirmed_semantic(self, question: str, ev, check: list[str], share: float) -> tuple[float, str]:
        """Typed semantic evidence for a document judged partly by meaning (share < 1: key terms of another
        language): (confirmed semantic match, reason) when one of its rules.VALUE_EVIDENCE_TOP best sentences by
        meaning matches at least rules.TYPED_MIN_SEMANTIC and states what is asked — a value of the asked kind in the
        asked unit (``answertype.fit`` STRONG; a company's name for "which company"), or a value of the asked kind
        with a language-independent anchor of the question (a number, a Latin name, a romanized name) in the
        sentence or its heading. Meaning and the stated value then agree, and the sentence's semantic match is filled
        by rules.TYPED_CONFIRM_FILL of what it lacks. (0.0, "") otherwise: a generic "how much" with no unit, no
        asked value, a document whose key terms are all checkable (judged by its words), or one that names none of
        the question's Latin / romanized names (the same value stated for something else is a near miss)."""
        if share >= 1.0 or not len(ev.units):
            return 0.0, ""
        asked = asked_for_grading(question)
        if not asked.kinds or (asked.label in ("quantity", AMOUNT) and not asked.units):
            return 0.0, ""
        # a one-digit number ("제2수장고") is too common to anchor anything
        anchors = [t for t in check if (_is_number(t) and len(t) >= 2) or (not _is_number(t) and _name_like(t, question))]
        # the question names something the document never names: meaning alone is a near miss. Checked where the
        # document could write the name so that we can find it: as written (Latin text) or romanized (Korean text,
        # rag.romanize); a Chinese text writes "Hangzhou" as 杭州, which no rule here can match
        names = [t for t in anchors if not _is_number(t)]
        whole = "\n".join(f"{u.heading}\n{u.text}" for u in ev.units)
        if names and text_scripts(whole) & {"en", "ko"} and not coverage_of(names, whole).covered:
            return 0.0, ""
        known = frozenset(w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9\-]*", question))
        numbers = {_norm(t) for t in check if _is_number(t)}
        best_j = -1
        for j in np.argsort(-ev.scores)[:VALUE_EVIDENCE_TOP]:
            j = int(j)
            if ev.scores[j] < TYPED_MIN_SEMANTIC:
                break
            unit = ev.units[j]
            if numbers and not numbers <= stated_numbers(_window(ev.units, j)):
                continue  # "5톤이 넘는 화물차" is not answered by a taxi fare: the question's numbers are not there
            if asked.label == "organisation":
                how = STRONG if names_organisation(unit.text, known, marked=True) else 0
            else:
                how = fit(asked, unit.text)
                if how == WEAK and anchors and coverage_of(anchors, f"{unit.heading}\n{unit.text}").covered:
                    how = STRONG
            if how >= STRONG:
                best_j = j
                break
        if best_j < 0:
            return 0.0, ""
        own = float(ev.scores[best_j])
        confirmed = own + (1 - own) * TYPED_CONFIRM_FILL
        return confirmed, (f"typed evidence: '{ev.units[best_j].text[:50]}' matches by meaning ({own:.2f}) and states "
                           f"the asked {asked.label} → semantic {confirmed:.2f}")

    def _asked_value_missing(self, question: str, text: str, ev, check: list[str], share: float) -> str:
        """Why a document that looks correct does not answer what is asked ("" when it does):

        - the asked attribute (``asked_attribute``: "위약금" in "위약금은 얼마", "fee" in "what is the fee for …") is in
          none of its sentences or headings, where the document is written in the attribute's script (a document
          that speaks of the ship but not of its compensation does not say how much the compensation was);
        - the question asks for a value (a year, an amount, a count, a date, a company …:
          ``answertype.asked_for_grading``; else any number when rules.WANTS_NUMBER and the document is judged
          partly by meaning) and none of its best-matching sentences — by meaning, and by key terms where they are
          checkable, each with the sentence after it — states a value of that kind (``answertype.answers``: "how
          much did they pay" is not answered by "built in 2023")."""
        attr = asked_attribute(question)
        if attr:
            headings = " ".join(dict.fromkeys(u.heading for u in ev.units if u.heading))
            where = f"{text}\n{headings}"
            if prepared_text(where).match(attr)[0] <= 0 and term_script(attr) in text_scripts(text):
                return f"the asked attribute '{attr}' is in none of its sentences"
            apart = self._stated_apart(question, attr, ev, check)
            if apart:
                return apart
        asked = asked_for_grading(question)
        if not asked.kinds and not (share < 1.0 and WANTS_NUMBER.search(_norm(question))):
            return ""  # any value ("몇 m", "when"): checked only where the document is judged (partly) by meaning
        if not len(ev.units):
            return ""
        top = {int(j) for j in np.argsort(-ev.scores)[:VALUE_EVIDENCE_TOP] if ev.scores[j] > 0}
        if share > 0 and check:
            terms = [t for t in check if not _is_number(t)]
            lex = np.asarray([coverage_of(terms, f"{u.heading}\n{u.text}").score if terms else 0.0
                              for u in ev.units])
            top |= {int(j) for j in np.argsort(-lex)[:VALUE_EVIDENCE_TOP] if lex[j] > 0}
        # the sentence after a best match too, under the same heading: a table row under its header, the value
        # after "the fees are as follows:"
        top |= {j + 1 for j in top if j + 1 < len(ev.units) and ev.units[j + 1].heading == ev.units[j].heading}
        known = frozenset(w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9\-]*", question))
        if asked.kinds:
            stating = any(answers(asked, ev.units[j].text, known) for j in top)
            counted = _counted_noun(question) if asked.units <= {"item"} else ""
            if counted and "en" in text_scripts(text):  # "how many cages": a count of cages ("six cages"), no other
                if any(_counts(counted, ev.units[j].text, f"{ev.units[j - 1].text if j else ''} {ev.units[j].heading}")
                       for j in top):
                    return ""
                if stating:
                    return f"asks how many {counted} and none of its best-matching sentences counts them"
            if stating:
                return ""
        elif any(states_number(ev.units[j].text) for j in top):
            return ""
        what = {"organisation": "a company's name", "money": "an amount of money", "year": "a year"}.get(
            asked.label, f"a {asked.label}" if asked.kinds else "a value")
        return f"asks for {what} and none of its {len(top)} best-matching sentences states one"

    def _stated_apart(self, question: str, attr: str, ev, check: list[str]) -> str:
        """The sentences that state the asked attribute ("维修费用约为 1.2 亿韩元") must be about what the question
        names: read with their headings (document title, section) and rules.COOCCUR_WINDOW sentences either side (same section),
        they must contain the question's numbers and most of its other key terms that the chunk contains
        (rules.COOCCUR_MIN_SHARE). A chunk that covers the question only when its sentences are pooled — the cost is
        stated for one ship, the question names another — is at most ambiguous. Only where the attribute is
        written in the chunk (lexical evidence); "" when the rule does not fire."""
        units = ev.units
        holders = [j for j, u in enumerate(units) if prepared_text(u.text).match(attr)[0] > 0]
        if not holders:
            return ""
        # a question that asks several things: the terms of the part that asks for the attribute ("how long is the
        # induction" is not about where to turn up, the other part)
        own = _part_terms(question, attr)
        subject = [t for t in check if t != attr and not prepared_text(attr).match(t)[0] > 0
                   and not _contains_phrase(_norm(attr), t) and (own is None or t in own)]
        full = coverage_of(subject, "\n".join([u.heading for u in units] + [u.text for u in units]))
        named = [t for t in subject if full.credit.get(t, 0.0) > 0]
        if not named:
            return ""
        numbers = [t for t in named if _is_number(t)]
        others = [t for t in named if not _is_number(t)]
        best_missing: list[str] | None = None
        for j in holders:
            # the neighbours under the same heading only: the next section is about something else
            around = _window(units, j, COOCCUR_WINDOW)
            cov = coverage_of(named, around)
            missing = [t for t in named if cov.credit.get(t, 0.0) <= 0]
            got_others = sum(1 for t in others if cov.credit.get(t, 0.0) > 0)
            if not any(t in missing for t in numbers) and (not others or got_others >= COOCCUR_MIN_SHARE * len(others)):
                return ""
            if best_missing is None or len(missing) < len(best_missing):
                best_missing = missing
        return (f"the sentences that state '{attr}' do not name {_quote(best_missing or [], 4)} (named elsewhere in "
                "the chunk)")

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
        # a number outside the asking clause dates the event the question starts from ("2026年4月 … 出事，X 用的 …
        # 是从哪个系统读的？"): no relation states it
        lacking = [t for t in cov.missing_numbers if cov.focus is None or t in cov.focus]
        if fills and named and not lacking:
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


def _window(units, j: int, width: int = 1) -> str:
    """Sentence j with its heading and the ``width`` sentences either side of it under the same heading."""
    near = [u.text for u in units[max(0, j - width): j + width + 1] if u.heading == units[j].heading]
    return "\n".join([units[j].heading, *near])


def _numbers_in_headings(question: str, cov: Coverage, ev) -> Coverage:
    """A number of the question (a year, a month, a day) that the chunk's text lacks but the headings above its
    sentences state — the document's title "Incident Report: …, 8 November 2025", a section "2025년 추석" — is found:
    a heading gives context to every sentence under it (months by name too, ``credit_months``)."""
    missing = cov.missing_numbers
    headings = "\n".join(dict.fromkeys(u.heading for u in ev.units if u.heading))
    if not missing or not headings:
        return cov
    found = credit_months(question, headings, coverage_of(missing, headings))
    for t in found.covered:
        cov.credit[t] = 1.0
        cov.how[t] = "in a heading" + (f" {found.how[t]}" if found.how.get(t, "exact") != "exact" else "")
    return cov


def _states_the_asked_cause(question: str, terms: list[str], focus: set[str], lex: Coverage, ev) -> bool:
    """A cause question whose asking clause is only part of the question, over a text that holds some of the other
    clauses' words and states a cause (a cause sentence or a section under a cause heading)."""
    if not (focus and set(terms) - focus and lex.covered and "cause" in question_intents(question)):
        return False
    return any(states_cause(u.text) or heading_matches(u.section, {"cause"}) for u in ev.units)


def _part_terms(question: str, attr: str) -> set[str] | None:
    """The key terms of the asked part that holds the attribute, where the question asks several things (None
    otherwise: every term of the question)."""
    parts = asked_parts(question)
    if len(parts) < 2:
        return None
    for part in parts:
        terms = question_terms(part)[0]
        if attr in terms:
            return set(terms)
    return None
