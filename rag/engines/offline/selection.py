"""Which sentences an extractive answer quotes: question ↔ sentence meaning (multilingual embedder), key terms
where they can be checked, the value a question asks for, and the heading a sentence sits under."""
from __future__ import annotations

import re
from typing import Sequence

from rag.engines.offline.candidates import (Candidate, _leading_asked, _score_over, _values_of, _why, compared_order,
                                            event_document, names_only, procedure_steps, REFERENT_WHY,
                                            referent_before, value_after)
from rag.engines.offline.answertype import (NONE, ORGANISATION, STRONG, WEAK, AskedType, asked_for_grading, asked_type,
                                           fit, names_organisation, states_cause)
from rag.engines.offline.coverage import (SINO_KOREAN, _name_like, checkable_terms, coverage_of,
                                         question_terms)
from rag.engines.offline.layout import (_bylines, _is_table_row, _line_key, _list_items, _numbered_items, _quotable,
                                        _title_lines, field_label, is_table_header)
from rag.engines.offline.parts import asked_parts
from rag.engines.offline.ranges import asked_amounts, holds_asked_amount
from rag.engines.offline.rules import (CAUSE_BONUS, CAUSE_SECTION_MAX, COMPARED_SIDE_MIN, CONTINUATION_START,
                                       INTENT_HEADING_BONUS, LABEL_BONUS,
                                       SECOND_SOURCE_SHARE, WANTS_NUMBER,
                                       SECTION_BONUS_MIN_SEMANTIC, SEMANTIC_RANK_WEIGHT, SENTENCE_MIN_RANK,
                                       TABLE_MAX_ROWS, TYPE_BONUS, TYPE_SAME_DOC_SHARE, TYPE_SECOND_SHARE,
                                       TITLE_PENALTY, TYPE_WINDOW_SHARE, VALUE_BONUS, VALUE_BONUS_MIN_SEMANTIC)
from rag.engines.offline.semantics import compared_sides, heading_matches, question_intents
from rag.engines.offline.values import states_count_of
from rag.types import Retrieved

# a number stated as a value ("15일", "0.75", "3월", "450 个"), not a digit inside a name ("BM25", "k1", "X2")
_STATED_NUMBER = re.compile(r"(?<![A-Za-z0-9.\-])\d+(?:[.,]\d+)?(?![A-Za-z0-9\-])")


class EvidenceSelector:
    """Ranks and picks the sentences an answer quotes (part of ``OfflineEngine``)."""

    def _one_sentence_per_name(self, question: str, terms: Sequence[str], ranked: list[Candidate]) -> list[Candidate]:
        """A comparison ("Atlas와 Nuri는 어떻게 다른가요?"): for each name the question compares, its best sentence,
        preferring one about that name alone. When the question asks about nothing but the names ("What is the
        difference between Atlas and Nuri?"), a sentence that says what the name is comes first (``defines``)."""
        names = [t for t in terms if _name_like(t, question)]
        only_names = bool(names_only(question, terms))
        # a comparison of values ("How many taps does Mangwon have compared with Danyang?"): for each name, a
        # sentence that states a value of the asked kind comes first (the fact compared, not a sentence that only
        # names the place)
        value = _leading_asked(question).value  # the kind Candidate.fits was judged against (_rank_sentences)
        chosen: list[Candidate] = []
        for name in names[: self.rules.max_evidence]:
            about = [c for c in ranked if name in c.cov.covered and c not in chosen]
            if not about:
                continue
            if only_names:
                chosen.append(compared_order(name, names, about)[0])
            else:
                alone = [c for c in about if not any(o in c.cov.covered for o in names if o != name)] or about
                pick = [c for c in alone if c.fits == STRONG] if value else []
                pick = pick or alone
                if chosen and _is_table_row(chosen[0].text):
                    # the first name's answer is a table row: the other names' rows of that table state the same
                    # column ("| 서울 망원점 탭룸 | … | 탭 24개 |" beside "| 단양 본점 탭룸 | … | 탭 16개 |")
                    pick = [c for c in pick if c.pos == chosen[0].pos and _is_table_row(c.text)] or pick
                chosen.append(pick[0])
        return chosen

    def _rank_sentences(self, question: str, terms: Sequence[str], docs: Sequence[Retrieved],
                        wants_value: bool = False, graded: Sequence[float] | None = None) -> list[Candidate]:
        """Every quotable sentence of the docs, best first.

        rank = share × key-term coverage + (1 − share) × semantic match + w × semantic match (+ value, range,
        label, heading bonuses; the range bonus: a range that holds the amount the question states of its own case,
        ``ranges``), where share is the part of the key terms the document could contain as written (its language):
        a same-language document is judged by its words first, another language's by meaning. When the best key-term
        coverage of any sentence is low, meaning fills part of the gap in the confirmed documents (see below).

        ``graded`` (the agent's grade score of each document, 0 for one graded only ambiguous): a value of the
        asked kind in a document graded only ambiguous (beside a correct one) gets the weak-value bonus; the
        sentences of the best-graded document count as on topic for the value bonus (the grader has already judged
        the document as a whole to answer the question; a sentence stating the asked value in it needs no key term
        of its own).
        Grade scores do not otherwise reorder sentences: a penalty by grade gap (1 grade point = 1 rank point) lost
        four dev answers, the grade of a document says little about which of its sentences answers."""
        intents = question_intents(question)
        # the words of the clause that asks weigh fully, a lead-in's or a statement's half (Coverage.weight): "I just
        # started this week." says who asks, not what
        focus = question_terms(question)[1] & set(terms) or None
        best_grade = max(graded) if graded else 0.0
        asked = _leading_asked(question)
        amounts = asked_amounts(question)  # the asker's own case ("닷새 전에 취소하려고요"): the rule whose range holds it
        evidence = self.sentence_evidence(question, docs)
        # the documents write the word the question counts after a number ("몇 니트" → "48니트"): it is a unit there,
        # and a value in another unit ("7일마다") answers the question only weakly
        counted = bool(asked.counted) and any(states_count_of(asked.counted, u.text) for ev in evidence
                                                  for u in ev.units)
        names = [t for t in terms if _name_like(t, question)] if asked.kinds else []
        named: dict[str, list[str]] = {}  # heading -> the question's names it states
        ranked: list[Candidate] = []
        lexical: list[tuple[Candidate, float, float]] = []  # (candidate, share, key-term score) for the meaning fill
        for pos, (doc, ev) in enumerate(zip(docs, evidence)):
            doc_all = coverage_of(terms, doc.text)
            doc_cov = doc_all.as_written()
            items = _list_items(doc.text)
            titles = _title_lines(doc.text)
            bylines = _bylines(doc.text)
            numbered = _numbered_items(doc.text)
            check, share = checkable_terms(terms, question, doc.text, doc_cov)
            # a term held only by its Sino-Korean reading ("通信费" ↔ "통신비") is no evidence that the document answers
            # (grading does not weigh it), but tells the sentence that says it and adds to the share (never in check)
            read = [t for t, how in doc_all.how.items() if how.startswith(SINO_KOREAN) and t not in check]
            share += len(set(read) & set(doc_cov.content_terms)) / max(1, len(doc_cov.content_terms))
            for j, unit in enumerate(ev.units):
                if not _quotable(unit.text):
                    continue
                # a cause / procedure / comparison question reads a sentence with its headings (the document's
                # title names the event, the section says "Root cause")
                scoped_text = f"{unit.heading}\n{unit.text}" if intents and unit.heading else unit.text
                if not intents and names and unit.heading:
                    # a value question: the question's names (Latin names, numbers) in the headings above a
                    # sentence count for it ("## TideBook" › "It went live in 2021."); their other words do not
                    # (every sentence of a section would gain them alike)
                    if unit.heading not in named:
                        named[unit.heading] = [t for t in names if coverage_of([t], unit.heading).covered]
                    if named[unit.heading]:
                        scoped_text = " ".join(named[unit.heading]) + "\n" + unit.text
                full = coverage_of(terms, scoped_text, focus)
                cov = full.as_written()
                lex = _score_over(full, check + read) if read else _score_over(cov, check)
                sem = float(ev.scores[j])
                rank = share * lex + (1 - share) * sem + SEMANTIC_RANK_WEIGHT * sem
                confirmed = bool(graded) and best_grade > 0 and graded[pos] >= best_grade
                on_topic = lex > 0 or sem > VALUE_BONUS_MIN_SEMANTIC or confirmed
                fits = fit(asked, unit.text) if asked.kinds else NONE
                if counted:
                    fits = STRONG if states_count_of(asked.counted, unit.text) else min(fits, WEAK)
                if asked.kinds:  # a value of the asked kind (and unit) first: "7일" for 며칠, not "90분"
                    # … from a document the grader confirmed: a value in a document graded only ambiguous, beside
                    # a correct one, counts as a weak value (the grader did not find the question's matter there)
                    unconfirmed = bool(graded) and best_grade > 0 and graded[pos] <= 0
                    rank += (TYPE_BONUS if fits == STRONG and not unconfirmed else
                             VALUE_BONUS if fits >= WEAK else 0.0) * on_topic
                elif wants_value and on_topic and _STATED_NUMBER.search(unit.text):
                    rank += VALUE_BONUS
                holds = on_topic and holds_asked_amount(amounts, unit.text)
                if holds:
                    rank += TYPE_BONUS
                # a table row or "label: value" line whose label is an asked word states that word's value
                # ("定金交多少？" → "| 定金 | 蛋糕价格的 30% |", not the cancellation row that mentions 定金)
                label = "" if intents or not on_topic else field_label(unit.text)
                labelled = bool(label) and bool(coverage_of(list(focus or terms), label).covered)
                if labelled:
                    rank += LABEL_BONUS
                causal = asked.cause and states_cause(unit.text)
                scoped = bool(intents) and heading_matches(unit.section, intents)
                if causal and not scoped and (lex > 0 or sem > SECTION_BONUS_MIN_SEMANTIC):
                    rank += CAUSE_BONUS  # a heading of the cause section already says so (INTENT_HEADING_BONUS)
                if scoped and (lex > 0 or sem > SECTION_BONUS_MIN_SEMANTIC):
                    rank += INTENT_HEADING_BONUS
                key = _line_key(unit.text)
                title = " ".join(unit.text.split()) in titles or any(key and key in b for b in bylines)
                if title:  # a title states nothing: the sentences under it answer (kept for a procedure's lead line)
                    rank -= TITLE_PENALTY
                ranked.append(Candidate(rank - 0.01 * pos, pos, j, unit.text, cov, sem, unit.section, scoped,
                                        items.get(" ".join(unit.text.split()), 0), fits, causal,
                                        numbered=" ".join(unit.text.split()) in numbered, title=title))
                if holds or labelled:
                    ranked[-1].why = ("best match; its range holds the amount the question states" if holds else
                                      f"best match; its label '{label}' is what the question asks")
                lexical.append((ranked[-1], share, lex))
        # Where no sentence covers much of the question by its words (a long question with a lead-in, "이번에 제천
        # 의림지점 셀러 담당이 됐는데요, … 몇 퍼센트로 타고 …"), words cannot tell its sentences apart while another
        # language's sentences are ranked by meaning alone: meaning then fills the gap between a sentence's words and
        # its meaning, in proportion to what the words could not decide (1 − the best key-term score). Only in the
        # documents the grader confirmed (all of them for naive, which grades nothing). No tuned number. The best
        # key-term score is weighed by share, the part of the question's key terms its document could hold as written:
        # an English sentence that names "Jecheon", the one term of sixteen it could hold, has not decided anything.
        top_lex = max((share * lex for _, share, lex in lexical), default=0.0)
        for c, share, lex in lexical:
            if not graded or graded[c.pos] > 0:
                c.rank += share * (1 - top_lex) * max(0.0, c.semantic - lex)
        # Equal rank in one document: the shorter sentence states the fact more directly
        # ("연차 휴가는 입사 1년 후 15일이다" over a long sentence about the first year's exception).
        ranked.sort(key=lambda c: (-round(c.rank, 6), c.pos, len(c.text)))
        return ranked

    def _one_sentence_per_side(self, question: str, docs: Sequence[Retrieved],
                               ranked: list[Candidate]) -> list[Candidate]:
        """A comparison whose sides are not names found as written (another language, common nouns): for each side
        (``compared_sides``), the quotable sentence that matches it best by meaning."""
        per_doc = self.side_scores(question, docs)
        if not per_doc or not per_doc[0]:
            return []
        chosen: list[Candidate] = []
        for k, side in enumerate(compared_sides(question)):  # side_scores' sides, in its order
            # a sentence that writes the side ("**상품**: 당도 10.5브릭스") over one that only means something like it
            written = [c for c in ranked if c not in chosen and coverage_of([side], c.text).covered]
            best = max(written or (c for c in ranked if c not in chosen), default=None,
                       key=lambda c: float(per_doc[c.pos][k][c.index]))
            if best is None or float(per_doc[best.pos][k][best.index]) < COMPARED_SIDE_MIN:
                return []
            chosen.append(best)
        return chosen

    def _select(self, question: str, terms: Sequence[str], docs: Sequence[Retrieved],
                wants_value: bool = False, graded: Sequence[float] | None = None) -> list[Candidate]:
        """The sentences an answer quotes (``_select_whole``); for a question that asks several things
        (``parts.asked_parts``), then the best sentence for each part that the quotes lack, from a quoted document
        when one answers it about as well (rules.SECOND_SOURCE_SHARE of the part's best), else the part's best. Two
        parts asking the same kind of value do not share a sentence that states only one of it."""
        chosen = self._select_whole(question, terms, docs, wants_value, graded)
        parts = asked_parts(question)
        if len(parts) < 2 or not chosen:
            return chosen
        whole: list[Candidate] | None = None
        first = len(chosen)
        at: dict[tuple[int, int], Candidate] = {}  # every sentence a part ranked, by place (the rows under a header)
        claimed: dict[tuple[int, int], frozenset[str]] = {}  # sentence a part has taken -> the kinds that part asks
        for n, part in enumerate(parts, 1):
            part_terms, _ = question_terms(part)
            ranked = [c for c in self._rank_sentences(part, part_terms, docs, bool(WANTS_NUMBER.search(part.lower())),
                                                      graded) if not c.title]
            if not ranked:
                continue
            at.update({(c.pos, c.index): c for c in ranked})
            quoted = {c.pos for c in chosen}
            best = next((c for c in ranked if c.pos in quoted and c.rank >= SECOND_SOURCE_SHARE * ranked[0].rank),
                        ranked[0])
            asked = asked_type(part)
            mine = asked.kinds & claimed.get((best.pos, best.index), frozenset())
            if mine and len(_values_of(best, AskedType(mine))) == 1:
                # another part took this sentence and its one value of the kind asked ("平时拿多少比例" and "超过五千万元
                # 的部分又是多少" both rank "…超过 5,000 万元的部分…提高至 32%" first): this part's value is another
                # sentence of that document stating one, on this part's topic ("Neoul 获得净收入的 28%")
                other = next((c for c in ranked if c.pos == best.pos and c.fits == STRONG and c.cov.covered
                              and all((c.pos, c.index) != (q.pos, q.index) for q in chosen)), None)
                if other is not None:
                    other.why = (f"states the {asked.label} part {n} asks for ('{part[:40]}'); its best match states "
                                 "another part's only value")
                    claimed[(other.pos, other.index)] = asked.kinds
                    chosen.append(other)
                    continue
            claimed[(best.pos, best.index)] = asked.kinds
            if any((c.pos, c.index) == (best.pos, best.index) for c in chosen):
                continue
            value = asked.value
            on_topic = bool(best.cov.covered) or best.semantic >= SECTION_BONUS_MIN_SEMANTIC
            stated = value_after(best, ranked) if on_topic and value and best.fits < STRONG else None
            if stated is not None:
                # the part's best sentence names the step, a sentence after it states its value ("세척 펌프로 세척액을
                # 라인 안에 돌린다." + "중간에 멈추지 않고 20분 넘게 돌리며 …"): both are quoted
                best.why = f"best match for part {n} of the question ('{part[:40]}')"
                chosen.append(best)
                if not any((c.pos, c.index) == (stated.pos, stated.index) for c in chosen):
                    stated.why = f"states the {asked.label} part {n} asks for, right after its best match"
                    chosen.append(stated)
                continue
            if not on_topic or (value and best.fits < WEAK):
                # nothing speaks to this part by its own words ("晚上几点关门" names no store): the sentence the whole
                # question ranks best among those stating the value this part asks for ("营业时间：每天 08:00 至
                # 21:30"), if it is on the question's topic; else nothing (quoting one would be noise)
                if not value:
                    continue
                if whole is None:
                    whole = [c for c in self._rank_sentences(question, terms, docs, wants_value, graded) if not c.title]
                best = next((c for c in whole if (c.cov.covered or c.semantic >= SECTION_BONUS_MIN_SEMANTIC)
                             and fit(asked, c.text) == STRONG), None)
                if best is None or any((c.pos, c.index) == (best.pos, best.index) for c in chosen):
                    continue
                best.why = f"states the {asked.label} part {n} asks for ('{part[:40]}')"
                chosen.append(best)
                continue
            best.why = f"best match for part {n} of the question ('{part[:40]}')"
            chosen.append(best)
        # a part's sentence that is a table's header row: the rows under it state the values (as for the whole's)
        done = {(c.pos, c.index) for c in chosen[:first]}
        return chosen[:first] + [c for c in self._with_neighbours(chosen[first:], list(at.values()), rows_only=True)
                                 if (c.pos, c.index) not in done]

    def _select_whole(self, question: str, terms: Sequence[str], docs: Sequence[Retrieved],
                      wants_value: bool = False, graded: Sequence[float] | None = None) -> list[Candidate]:
        """The best sentence, then sentences that add uncovered key terms, or a second source that supports the
        same. A question for a cause / procedure / comparison gets the section of that kind in the best-matching
        document instead (its best sentence first, then the rest of the section in document order). Then: a
        sentence that states the value the question asks for when none quoted does (``_with_asked_type``), the
        sentence that continues a quoted one, and the rows under a quoted table header (``_with_neighbours``)."""
        ranked = self._rank_sentences(question, terms, docs, wants_value, graded)
        if not ranked:
            return []
        # a title line names the topic; any sentence states more (a title is quoted only when nothing else is quotable)
        ranked = [c for c in ranked if not c.title] + [c for c in ranked if c.title]
        top = ranked[0]
        # a cause / procedure / comparison question: the best-matching document's section of that kind answers it,
        # however well another sentence of the document (the summary naming the event) matches the question
        if "comparison" in question_intents(question):
            compared = self._one_sentence_per_name(question, terms, ranked)
            if len(compared) >= 2:
                return self._with_neighbours(_why(compared, "best match for one compared side"), ranked)
            compared = self._one_sentence_per_side(question, docs, ranked)
            if len(compared) >= 2:
                return self._with_neighbours(_why(compared, "best match for one compared side"), ranked)
        if "procedure" in question_intents(question):
            steps = procedure_steps(ranked)
            if steps:
                return _why(steps, "a step of the best-matching list")
        asked = asked_type(question)
        # "which company" (``answertype.asked_for_grading``): asked_type reads no value there; a quoted sentence must
        # name one, as grading checks
        typed = ORGANISATION if asked_for_grading(question) is ORGANISATION else asked
        section = [c for c in ranked if c.pos == event_document(question, terms, docs, ranked, top.pos)
                   and c.scoped]
        if section:
            first = section[0]
            rest = sorted((c for c in section if c is not first and c.heading == first.heading), key=lambda c: c.index)
            # a cause section is read whole, up to CAUSE_SECTION_MAX sentences: the real cause is often its last
            # sentences, after the first explanation is ruled out ("Boiler No. 2 was never at fault …")
            limit = CAUSE_SECTION_MAX if "cause" in question_intents(question) else self.rules.max_evidence
            chosen = [first] + _why(rest[: limit - 1], f"same section '{first.heading}'")
            first.why = f"under the heading '{first.heading}' (the kind of question asked)"
            return self._with_neighbours(self._with_asked_type(typed, ranked, chosen), ranked)
        chosen = [top]
        covered = set(top.cov.covered)
        for item in ranked[1:]:
            if len(chosen) >= self.rules.max_evidence:
                break
            new = set(item.cov.covered) - covered
            if new and item.rank >= SENTENCE_MIN_RANK and len(item.cov.covered) >= 2:
                item.why = "adds key terms " + ", ".join(sorted(new)[:3])
                chosen.append(item)
                covered |= new
        if (len(chosen) == 1 and len(ranked) > 1
                and ranked[1].rank >= max(SENTENCE_MIN_RANK, SECOND_SOURCE_SHARE * top.rank)
                and ranked[1].pos != top.pos
                and not (asked.kinds and ranked[1].fits < WEAK)):  # a second source of the asked value, not any
            ranked[1].why = "a second source that supports it"
            chosen.append(ranked[1])
        return self._with_neighbours(self._with_asked_type(typed, ranked, chosen), ranked)

    def _with_asked_type(self, asked: AskedType, ranked: list[Candidate], chosen: list[Candidate]) -> list[Candidate]:
        """When the question asks for a kind of value (a year, days, people, money …) or a cause and no quoted
        sentence states one: the best-ranked sentence that does, first when it ranks close to the best
        (``TYPE_WINDOW_SHARE``), else right after the best when it comes from the best sentence's document
        (``TYPE_SAME_DOC_SHARE``) — a near-correct ranking still quotes the fact, irrelevant sentences are not added."""
        if not asked or not chosen:
            return chosen

        def states(c: Candidate) -> bool:
            if asked is ORGANISATION:  # "which company": a legal-form or trade word names one ("…, a software company")
                return names_organisation(c.text, marked=True)
            # a cause: a causal connective, or a sentence under a cause heading (the heading says it is one)
            return c.fits == STRONG if asked.kinds else (c.causal or c.scoped)

        top = ranked[0]
        if any(states(c) for c in chosen):
            if not asked.kinds or asked is ORGANISATION or len(chosen) >= self.rules.max_evidence:
                return chosen
            # a second, close sentence stating another value of the asked kind ("went live in 2021" beside an
            # outage date): a near-correct ranking still quotes the fact
            said = {v for c in chosen for v in _values_of(c, asked)}
            other = next((c for c in ranked if c not in chosen and states(c)), None)
            if (other is not None and other.rank >= TYPE_SECOND_SHARE * top.rank
                    and not set(_values_of(other, asked)) <= said):
                other.why = f"states another value of the asked {asked.label}"
                return chosen + [other]
            return chosen
        for c in ranked:
            if not states(c) or c in chosen:
                continue
            if not asked.kinds and c.pos != chosen[0].pos:
                continue  # a cause stated in another document is another event's cause
            if c.rank >= TYPE_WINDOW_SHARE * top.rank:
                c.why = f"states the asked {asked.label}"
                return ([c] + chosen)[: self.rules.max_evidence]
            if c.pos == chosen[0].pos and c.rank >= TYPE_SAME_DOC_SHARE * top.rank:
                c.why = f"states the asked {asked.label} (same document as the best match)"
                return (chosen[:1] + [c] + chosen[1:])[: self.rules.max_evidence]
            break  # the best sentence stating it ranks too low: nothing is added
        return chosen

    def _with_neighbours(self, chosen: list[Candidate], ranked: list[Candidate],
                         rows_only: bool = False) -> list[Candidate]:
        """A quoted sentence's neighbours where it cannot stand alone: the next sentence when it continues it ("…
        받지 않는다." + "대신 …", "However, …"), the one before when it starts with a pronoun for what that one names
        ("It is refunded …": ``referent_before``), the rows under a table header row (its rows state the values).
        ``rows_only``: only the rows (the sentences the parts of a question added)."""
        at = {(c.pos, c.index): c for c in ranked}
        out: list[Candidate] = []
        for c in chosen:
            if c in out:
                continue
            if is_table_header(c.text):
                rows = []
                k = c.index + 1
                while (c.pos, k) in at and _is_table_row(at[(c.pos, k)].text) and len(rows) < TABLE_MAX_ROWS:
                    rows.append(at[(c.pos, k)])
                    k += 1
                if rows:
                    out.append(c)
                    out += _why([r for r in rows if r not in out and r not in chosen], "a row of the table under the quoted header")
                    continue
            out.append(c)
            if rows_only:
                continue
            out += _why([p for p in [referent_before(c, ranked)] if p is not None and p not in chosen and p not in out], REFERENT_WHY)
            nxt = at.get((c.pos, c.index + 1))
            if nxt is not None and nxt not in chosen and nxt not in out and CONTINUATION_START.match(nxt.text.strip()):
                nxt.why = "continues the sentence before it"
                out.append(nxt)
        return out


# language: a sentence that says what a name is — the name first (after a list marker or "The"), then a colon, a
# Korean topic or subject particle, "is / are / was", or Chinese 是 / 为 (a bracketed gloss may come between):
# "- Atlas: 기업 내부 문서를 찾아 주는 검색 서비스", "Atlas is the enterprise search service …", "Nuri는 … 챗봇이다",
