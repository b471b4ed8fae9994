"""generate: extractive answers — sentences copied from the documents, numbered citations, never invented text;
the one exception is the naive mode's composed sentence for an asked part its context never states (gapfill.py),
appended without a citation and named in the answer's reason."""
from __future__ import annotations

from typing import Sequence

from rag.engines.offline.answertype import STRONG, WEAK, asked_type
from rag.engines.offline.coverage import checkable_terms, coverage_of, question_terms
from rag.engines.offline.gapfill import compose_gaps, describe
from rag.engines.offline.parts import asked_parts
from rag.engines.offline.relations import asked_relations, graph_path
from rag.engines.offline.rules import CLOSEST_QUOTES, MEANING_ONLY_QUOTES, WANTS_NUMBER
from rag.engines.offline.candidates import Candidate, compared_order, conclusion_of, names_only, why_quoted
from rag.engines.offline.semantics import question_intents
from rag.engines.offline.text import (_clean_sentence, _cite_label, _contains_phrase, _label_of, _norm, _quote,
                                      _sentences, language_of)
from rag.engines.offline.vocabulary import ASKED_LABELS, FRAMES, NO_VALUE_FRAMES
from rag.textutil import dominant_language
from rag.types import MATCHED_FOR, Answer, Citation, Grade, Retrieved, context_of


class Answerer:
    """generate: extractive answers — sentences copied from the documents, numbered citations (naive mode: see
    gapfill.py for the one composed sentence it may add).

    Part of ``OfflineEngine``."""

    def generate(self, question: str, docs: list[Retrieved], grades: list[Grade] | None, mode: str) -> Answer:
        lang = language_of(question)
        if mode == "direct":
            return self._generate_direct(question, lang)
        if mode == "naive":
            return self._generate_naive(question, docs, lang)
        if mode == "partial":
            return self._generate_partial(question, docs, grades, lang)
        return self._generate_answer(question, docs, grades, lang)

    @staticmethod
    def _context(docs: Sequence[Retrieved]) -> str:
        return "\n\n".join(f"[{i}] {_cite_label(d)}\n{d.text}" for i, d in enumerate(docs, 1))

    @staticmethod
    def _template(mode: str, description: str, question: str) -> list[dict[str, str]]:
        return [{"role": "system", "content": f"offline engine, mode '{mode}' (rules, no language model): {description}"},
                {"role": "user", "content": question}]

    def _answer_with_citations(self, question: str, pool: list[Retrieved], terms: Sequence[str], lang: str,
                               uncertainty: str | None, graded: Sequence[float] | None = None
                               ) -> tuple[str, list[Citation], list[Candidate]]:
        """``graded``: the grade score of each pool document (the agent's grading; None for naive, which grades
        nothing)."""
        f = FRAMES[lang]
        picked = self._select(question, terms, pool, wants_value=_wants_value(question),
                              graded=graded)
        if not picked:  # nothing quotable (very short texts): quote the first document as it is
            first = " ".join(pool[0].text.split())[:300] or "-"
            picked = [Candidate(0.0, 0, 0, first, coverage_of(terms, first), 0.0, "", False)]
        order: list[int] = []
        for c in picked:
            if c.pos not in order:
                order.append(c.pos)
        number = {pos: i + 1 for i, pos in enumerate(order)}
        lead = conclusion_of(picked)
        lines = [f"{f['conclusion']}: {lead.text} [{number[lead.pos]}]", f"{f['evidence']}:"]
        lines += [f"- {c.text} [{number[c.pos]}]" for c in picked]
        lines.append(f"{f['sources']}: " + "; ".join(f"[{number[p]}] {_cite_label(pool[p])}" for p in order))
        if uncertainty:
            lines.append(f"{f['uncertainty']}: {uncertainty}")
        citations = [Citation(id=pool[p].id, source=pool[p].source, text=pool[p].text, doc_id=pool[p].doc_id,
                              chunk_index=pool[p].chunk_index) for p in order]
        return "\n".join(lines), citations, picked

    def _generate_answer(self, question: str, docs: list[Retrieved], grades: list[Grade] | None, lang: str) -> Answer:
        f = FRAMES[lang]
        labels = [_label_of(grades, i) for i in range(len(docs))]
        correct = sorted((i for i, lab in enumerate(labels) if lab == "correct"), key=lambda i: -grades[i].score)
        ambiguous = sorted((i for i, lab in enumerate(labels) if lab == "ambiguous"), key=lambda i: -grades[i].score)
        pool = [docs[i] for i in correct + ambiguous]
        template = self._template("answer", "quote the sentences of correct (then ambiguous) documents that best match "
                                  "the question (meaning across languages, key terms, the section it asks about); "
                                  "conclusion + evidence + citations + uncertainty; "
                                  "abstain when no document is correct or ambiguous", question)
        if not pool:
            text = f"{f['abstain']} {f['abstain_hint']}"
            return Answer(text, [], True, f"no document graded correct or ambiguous ({len(docs)} graded) → abstain",
                          context=self._context([]), prompt=template)
        if all(d.tool == "graph" for d in pool):
            return self._generate_graph_answer(question, docs, grades, lang, template)
        terms, _ = question_terms(question)
        graded = [grades[i].score if lab == "correct" else 0.0 for i, lab in
                  ((i, labels[i]) for i in correct + ambiguous)]
        text, citations, picked = self._answer_with_citations(question, pool, terms, lang, uncertainty=None,
                                                              graded=graded)
        quoted = "\n".join(c.text for c in picked)
        picked_cov = coverage_of(terms, quoted)
        check, share = checkable_terms(terms, question, quoted, picked_cov)
        missing = [t for t in picked_cov.missing if t in check]
        semantic = max(c.semantic for c in picked)
        if not correct:
            uncertainty = f["ambiguous_only"]
        elif missing:
            uncertainty = f["missing"].format(terms=_quote(missing))
        elif share < 1.0:
            uncertainty = f["by_meaning"].format(score=f"{semantic:.2f}")
        else:
            uncertainty = f["all_covered"]
        asked = asked_type(question)
        # say so: the sentences are on topic, the value is not (not for a person or a place: their patterns — a
        # name with a title, a floor, a desk — miss plain names, so "no sentence states it" could be false)
        if asked.value and max(c.fits for c in picked) < WEAK:
            label = ASKED_LABELS[lang].get(asked.label.split(" (")[0], asked.label)
            uncertainty = NO_VALUE_FRAMES[lang].format(label=label) + " " + uncertainty
            value_note = f"; no quoted sentence states the asked {asked.label}"
        else:
            value_note = ""
        # chunks read as context next to a usable one (rag.variants.base.with_context_neighbours) were not graded:
        # counted apart, and said when every quoted sentence comes from one
        # (next to it, or found in its document by meaning: MATCHED_FOR)
        context = {p for p, d in enumerate(pool) if context_of(d)}  # all among the "ambiguous" ones
        by_meaning = {p for p in context if (pool[p].metadata or {}).get(MATCHED_FOR)}
        if context and all(c.pos in context for c in picked):
            said = "context_only" if any(c.pos in by_meaning for c in picked) else "neighbour_only"
            uncertainty = f"{f[said]} {uncertainty}"
        text += f"\n{f['uncertainty']}: {uncertainty}"
        near = len(context) - len(by_meaning)
        read = ([f"{near} neighbouring chunk(s)"] if near else []) + (
            [f"{len(by_meaning)} chunk(s) of the same documents matching by meaning"] if by_meaning else [])
        reason = (f"extractive: {len(picked)} sentence(s) from {len(citations)} document(s) "
                  f"({len(correct)} correct, {len(ambiguous) - len(context)} ambiguous in context"
                  + (f", {' and '.join(read)} read as context, not graded" if read else "")
                  + f"); {picked_cov.summary()}; semantic match {semantic:.2f}")
        if picked[0].scoped:
            reason += f"; section '{picked[0].heading}' answers the kind of question asked"
        reason += "; " + why_quoted(question, picked) + value_note
        return Answer(text, citations, False, reason, context=self._context(pool), prompt=template)

    def _generate_graph_answer(self, question: str, docs: list[Retrieved], grades: list[Grade] | None, lang: str,
                               template: list[dict[str, str]]) -> Answer:
        """Graph facts: the path from the question's entities through the asked relations, fact by fact."""
        f = FRAMES[lang]
        supports = [self._support(_label_of(grades, i)) for i in range(len(docs))]
        filled, chain, path = graph_path(question, docs, supports)
        asked = asked_relations(question)
        def predicate(i: int) -> str:
            t = (docs[i].metadata or {}).get("triple") or []
            return t[1] if len(t) == 3 else ""
        on_path: list[int] = []
        for rel in asked:  # the fact nearest to the question's entities for each asked relation
            first = next((i for i in path if predicate(i) == rel), None)
            if first is not None:
                on_path.append(first)
        on_path.sort(key=path.index)
        if any(0 < v < 1 for v in filled.values()):  # a bridge (related_to or another relation) stood in
            on_path += [i for i in path if predicate(i) not in asked][: sum(1 for v in filled.values() if 0 < v < 1)]
            on_path.sort(key=path.index)
        correct = [i for i in range(len(docs)) if _label_of(grades, i) == "correct" and i not in on_path]
        chosen: list[int] = []
        for i in on_path + correct:
            key = tuple((docs[i].metadata or {}).get("triple") or [docs[i].id])
            if all(tuple((docs[j].metadata or {}).get("triple") or [docs[j].id]) != key for j in chosen):
                chosen.append(i)
        chosen = chosen[: max(self.rules.max_evidence + 1, len(on_path))]
        # the sentence that named the entity the question only describes (rag.tools.graph) comes first: the path
        # starts there
        described = [i for i in range(len(docs)) if (docs[i].metadata or {}).get("described_entity")
                     and supports[i] > 0 and on_path][:1]
        chosen = described + [i for i in chosen if i not in described]
        if not chosen:
            chosen = [max(range(len(docs)), key=lambda i: supports[i] * grades[i].score)]
        hops = self._hop_order(question, docs, chosen)
        triples = []
        for i in chosen:
            t = (docs[i].metadata or {}).get("triple") or []
            named = (docs[i].metadata or {}).get("described_entity")
            triples.append(f"{t[0]} —{t[1]}→ {t[2]}" if len(t) == 3 else named or _clean_sentence(docs[i].text))
        # the entity the path's last hop reaches (an extra correct fact listed after the path is no hop of it)
        answer_entity = next((e for i, e in reversed(hops) if i in on_path), hops[-1][1] if hops else "") \
            if on_path else ""
        head = f"{answer_entity} — " if answer_entity else ""
        lines = [f"{f['conclusion']}: {head}" + "; ".join(f"{t} [{n}]" for n, t in enumerate(triples, 1)),
                 f"{f['evidence']}:"]
        for n, i in enumerate(chosen, 1):
            evidence = (docs[i].metadata or {}).get("evidence") or docs[i].text.split("\n")[0]
            lines.append(f"- {_clean_sentence(evidence)} [{n}]")
        lines.append(f"{f['sources']}: " + "; ".join(f"[{n}] {_cite_label(docs[i])}" for n, i in enumerate(chosen, 1)))
        missing = [p for p in sorted(asked) if filled.get(p, 0) < 1]
        uncertainty = (f["missing"].format(terms=_quote(missing)) if missing else
                       self._say(lang, "질문이 묻는 관계가 모두 그래프 사실로 이어집니다. 사실은 문서 문장에서 규칙으로 뽑은 것입니다.",
                                 "Every asked relation is reached by a graph fact; facts were extracted from document "
                                 "sentences by rules.",
                                 "问题所问的关系都由图谱事实连接；事实由规则从文档句子中抽取。"))
        lines.append(f"{f['uncertainty']}: {uncertainty}")
        citations = [Citation(id=docs[i].id, source=docs[i].source, text=docs[i].text, doc_id=docs[i].doc_id,
                              chunk_index=docs[i].chunk_index) for i in chosen]
        pool = [docs[i] for i in chosen]
        def evidence_of(i: int) -> str:
            return _clean_sentence((docs[i].metadata or {}).get("evidence") or "")[:80]

        steps = "; ".join(f"hop {n}: {triples[chosen.index(i)]} ('{evidence_of(i)}')" for n, (i, _) in enumerate(hops, 1))
        return Answer("\n".join(lines), citations, False,
                      f"graph path: {len(chosen)} fact(s), asked relations covered {chain:.2f}"
                      + (f"; {steps}" if steps else "") + (f"; answer: {answer_entity}" if answer_entity else ""),
                      context=self._context(pool), prompt=template)

    @staticmethod
    def _hop_order(question: str, docs: Sequence[Retrieved], chosen: Sequence[int]) -> list[tuple[int, str]]:
        """The chosen facts as a chain from the question's entities: (fact position, the entity it reaches), in
        the order they are reached; the last entity reached is what the question asks for."""
        q = _norm(question)
        reached: set[str] = set()
        for i in chosen:
            meta = docs[i].metadata or {}
            reached |= {_norm(e) for e in meta.get("question_entities") or []}
            if meta.get("described_entity"):  # the entity the question describes (rag.tools.graph)
                reached.add(_norm(meta["described_entity"]))
            t = meta.get("triple") or []
            if len(t) == 3:
                reached |= {_norm(e) for e in (t[0], t[2]) if _contains_phrase(q, e)}
        order: list[tuple[int, str]] = []
        left = [i for i in chosen if len((docs[i].metadata or {}).get("triple") or []) == 3]
        while left:
            step = next((i for i in left if {_norm(e) for e in (docs[i].metadata["triple"][0],
                                                                   docs[i].metadata["triple"][2])} & reached), None)
            if step is None:
                break
            left.remove(step)
            src, _, tgt = docs[step].metadata["triple"]
            new = tgt if _norm(src) in reached else src
            if _norm(new) in reached:
                continue
            reached.add(_norm(new))
            order.append((step, new))
        return order

    def _generate_naive(self, question: str, docs: list[Retrieved], lang: str) -> Answer:
        f = FRAMES[lang]
        template = self._template("naive", "no grading: quote the best-matching sentences of the top documents "
                                  "as the answer (pipeline baseline; it never checks relevance); an asked part "
                                  "that no sentence states is answered anyway with the closest name or number of "
                                  "the context (composed, not quoted: see gapfill.py)", question)
        top = list(docs[: self.settings.top_k])
        if not top:
            return Answer(f["no_docs"], [], False, "naive: nothing retrieved", context="", prompt=template)
        terms, _ = question_terms(question)
        text, citations, picked = self._answer_with_citations(question, top, terms, lang, uncertainty=None)
        reason = (f"naive: answered from the top {len(top)} documents without grading ({len(picked)} sentence(s) quoted); "
                  + why_quoted(question, picked))
        composed = compose_gaps(question, top, "\n".join(c.text for c in picked), lang)
        if composed:  # the unchecked generator also answers the asked parts the context never states (F3)
            head, _, rest = text.partition("\n")
            text = "\n".join([head + " " + " ".join(c.sentence for c in composed), rest])
            reason += f"; {describe(composed)}"
        return Answer(text, citations, False, reason, context=self._context(top), prompt=template)

    def _generate_partial(self, question: str, docs: list[Retrieved], grades: list[Grade] | None,
                          lang: str) -> Answer:
        f = FRAMES[lang]
        template = self._template("partial", "the sentences answer selection ranks best (unconfirmed), then which key "
                                  "terms of the question the correct / ambiguous documents cover (with the sentence "
                                  "and source) and which none covers", question)
        labels = [_label_of(grades, i) for i in range(len(docs))]
        pool_idx = [i for i, lab in enumerate(labels) if lab == "correct"] + \
                   [i for i, lab in enumerate(labels) if lab == "ambiguous"]
        seen: set[str] = set()
        pool: list[Retrieved] = []
        for i in pool_idx:
            if docs[i].id not in seen:
                seen.add(docs[i].id)
                pool.append(docs[i])
        terms, _ = question_terms(question)
        found: list[tuple[str, int, str]] = []
        missing: list[str] = []
        # each key term is shown in the sentence answer selection ranks best among those that contain it (not the
        # first one in document order, often an aside that merely names it); else the first sentence that does.
        # When the question asks for a kind of value (a date, an amount …), a sentence that states one comes first:
        # "Which opened earlier, A or B?" shows each side's opening year, not a sentence naming both sides
        ranked = self._rank_sentences(question, terms, pool) if pool else []
        in_order = [(pos, sentence) for pos, doc in enumerate(pool) for sentence in _sentences(doc.text)]
        usable = [c for c in ranked if not c.title]
        best_first = ([(c.pos, c.text) for c in usable if c.fits == STRONG]
                      + [(c.pos, c.text) for c in usable if c.fits != STRONG] + in_order)
        # a comparison that asks about nothing but the names ("What is the difference between A and B?"): each name
        # in the sentence that says what it is (candidates.compared_order)
        names = names_only(question, terms) if "comparison" in question_intents(question) else []
        compared = len(names) >= 2
        for t in terms:
            lead = ([(c.pos, c.text) for c in compared_order(t, names, [c for c in usable if t in c.cov.covered])]
                    if compared else [])
            hit = next(((t, pos, _clean_sentence(sentence)) for pos, sentence in lead + best_first
                        if coverage_of([t], sentence).credit[t] > 0), None)
            if hit:
                found.append(hit)
            else:
                missing.append(t)
        by_meaning = self._meaning_only_quotes(question, terms, pool, {s for _, _, s in found})
        if not found and not by_meaning:
            text = f"{f['abstain']}\n{f['not_found']}: {_quote(terms, 12) or question}"
            return Answer(text, [], True, f"partial: no correct/ambiguous document covers any key term → abstain",
                          context=self._context(pool), prompt=template)
        # the sentences a normal answer would quote (meaning, key terms, the asked value, the section), best first:
        # shown first as unconfirmed candidates — the per-term matches below are often asides that merely name a term
        listed = {s for _, _, s in found} | {s for _, s in by_meaning}
        closest: list[tuple[int, str]] = []
        # one more for each further part the question asks ("…哪天开的？晚上几点关门？"): selection adds a part's best
        # sentence after the whole question's, and a fixed count cut the second part's off
        limit = CLOSEST_QUOTES + max(0, len(asked_parts(question)) - 1)
        for c in self._select(question, terms, pool, wants_value=_wants_value(question)):
            sentence = _clean_sentence(c.text)
            if not c.title and sentence and sentence not in listed:
                listed.add(sentence)
                closest.append((c.pos, sentence))
            if len(closest) >= limit:
                break
        order: list[int] = []
        for pos in [pos for pos, _ in closest] + [pos for _, pos, _ in found] + [pos for pos, _ in by_meaning]:
            if pos not in order:
                order.append(pos)
        number = {pos: i + 1 for i, pos in enumerate(order)}
        by_sentence: dict[tuple[int, str], list[str]] = {}
        for t, pos, sentence in found:
            by_sentence.setdefault((pos, sentence), []).append(t)
        lines = [f"{f['closest_found']}:"] + [f"- {sentence} [{number[pos]}]" for pos, sentence in closest] \
            if closest else []
        lines += [f"{f['found']}:"] if found else []
        lines += [f"- {sentence} [{number[pos]}] ({_quote(ts, 12)})" for (pos, sentence), ts in by_sentence.items()]
        if by_meaning:  # candidates an engine without a model cannot confirm across languages: said as such
            lines.append(f"{f['by_meaning_found']}:")
            lines += [f"- {sentence} [{number[pos]}]" for pos, sentence in by_meaning]
        lines.append(f"{f['not_found']}: " + (_quote(missing, 12) if missing else "-"))
        lines.append(f"{f['sources']}: " + "; ".join(f"[{number[p]}] {_cite_label(pool[p])}" for p in order))
        lines.append(f"{f['uncertainty']}: {f['partial_note']}")
        citations = [Citation(id=pool[p].id, source=pool[p].source, text=pool[p].text, doc_id=pool[p].doc_id,
                              chunk_index=pool[p].chunk_index) for p in order]
        return Answer("\n".join(lines), citations, False,
                      f"partial: {len(found)}/{len(terms)} key terms found in {len(order)} document(s); "
                      f"not found: {_quote(missing) or 'none'}"
                      + (f"; the {len(closest)} sentence(s) answer selection ranks best listed first as unconfirmed"
                         if closest else "")
                      + (f"; {len(by_meaning)} sentence(s) of documents in another language matched by meaning only"
                         if by_meaning else ""), context=self._context(pool), prompt=template)

    def _meaning_only_quotes(self, question: str, terms: Sequence[str], pool: list[Retrieved],
                             quoted: set[str]) -> list[tuple[int, str]]:
        """(pool position, sentence) of the sentences a partial answer offers from the correct / ambiguous documents
        written in another language than the question (graded first; graph facts excluded): the ones answer
        selection would quote from them (``_select``), at most rules.MEANING_ONLY_QUOTES, none already quoted.
        Key terms cannot find them there, so the partial answer lists them as matched by meaning only."""
        own = dominant_language(question)
        others = [i for i, d in enumerate(pool) if d.tool == "vector" and dominant_language(d.text) != own]
        if not others:
            return []
        picked = self._select(question, terms, [pool[i] for i in others],
                              wants_value=_wants_value(question))
        out: list[tuple[int, str]] = []
        for c in picked:
            sentence = _clean_sentence(c.text)
            if sentence and sentence not in quoted and all(sentence != s for _, s in out):
                out.append((others[c.pos], sentence))
            if len(out) >= MEANING_ONLY_QUOTES:
                break
        return out


def _wants_value(question: str) -> bool:
    """The question asks for a value (rules.WANTS_NUMBER: 몇 / how many / 多少): answer selection favours sentences
    that state one."""
    return bool(WANTS_NUMBER.search(_norm(question)))
