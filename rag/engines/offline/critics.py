"""The offline critics of the judging-RAG family (issue 10): transparent rules and scores, each with its reason.

- ``decide_tool`` (tool_agent's agent, seed 001): call the retriever tool unless the router's own rules say the
  question needs no retrieval (translation, arithmetic, code syntax → ``direct``).
- ``classify_complexity`` (adaptive, seed 003): the router's decision plus the number of asked parts
  (``parts.asked_parts`` with two key terms each):
  direct → simple; graph or web, or two or more asked parts → complex; otherwise moderate.
- ``grade_hallucination`` (self_rag): every claim sentence of the answer must have its key terms in the documents
  (the same key-term coverage the grader uses: Korean stems, glossary translations); a sentence under
  ``SUPPORT_MIN``, or with a number / year the documents do not hold, is unsupported.
- ``grade_answer`` (self_rag): the answer must contain one of the question's asked-about words (glossary
  translations count: a Korean question answered from an English document) or be close to it in the multilingual
  embedding space (e5-small's cross-lingual similarity is weak, so similarity alone decides little); an abstention
  is "not useful" (the loop may search again).
- ``refine`` (crag knowledge refinement): keep the sentences ("strips") that contain an asked-about word or a
  number of the question and cover at least ``STRIP_KEEP`` of the best sentence's key-term coverage; drop the rest;
  keep the best one when none qualifies.

The numbers below were chosen, not tuned on the sample set: "most of a sentence's content words" and "half of the
question's content words" became "one asked-about word" after a Korean question answered in English
(coverage 1/4 via the glossary, similarity 0.80) was judged not useful.
"""
from __future__ import annotations

import re
from typing import Any

from rag.engines.offline.coverage import coverage_of, question_terms
from rag.engines.offline.parts import asked_parts
from rag.engines.offline.text import _quote, language_of
from rag.engines.offline.vocabulary import FRAMES
from rag.textutil import split_sentences
from rag.types import Decision, Retrieved

SUPPORT_MIN = 0.6  # share of a claim sentence's key terms found in the documents for it to count as supported
MIN_CLAIM_TERMS = 2  # shorter sentences ("Sources:", "결론:") are not claims
ANSWER_MIN_HITS = 1  # asked-about words (or their glossary translations) the answer must contain to address it
ANSWER_SIMILARITY_MIN = 0.5  # or: question-answer similarity, rescaled to the embedder's usual range
STRIP_KEEP = 0.6  # a strip is kept when its key-term coverage is at least this share of the best sentence's
_CITATION = re.compile(r"\[\d+\]")


def _frame_words() -> tuple[set[str], set[str]]:
    """(labels that start a line, e.g. "결론" / "Evidence"; labels of meta lines that are not claims)."""
    labels, meta = set(), set()
    for frame in FRAMES.values():
        for key in ("conclusion", "evidence", "sources", "uncertainty", "found", "not_found"):
            labels.add(frame[key].lower())
        for key in ("sources", "uncertainty", "not_found"):
            meta.add(frame[key].lower())
    return labels, meta


def claim_sentences(answer: str) -> list[str]:
    """The sentences of an answer that state something: frame labels, source lists and citations removed."""
    labels, meta = _frame_words()
    stock = {v.strip().lower() for frame in FRAMES.values() for v in frame.values()}
    out: list[str] = []
    for line in (answer or "").splitlines():
        line = line.strip().lstrip("-*• ").strip()
        if not line:
            continue
        head, sep, rest = line.partition(":")
        if sep and head.strip().lower() in labels:
            if head.strip().lower() in meta:
                continue
            line = rest.strip()
        for sentence in split_sentences(line):
            sentence = _CITATION.sub("", sentence).strip()
            if sentence and sentence.lower() not in stock:
                out.append(sentence)
    return out


class Critics:
    """The critics of self_rag, crag, adaptive and tool_agent (a part of ``OfflineEngine``)."""

    def decide_tool(self, question: str, query: str) -> Decision:
        decision = self.classify(query or question, [])
        if decision.strategy == "direct":
            return Decision("answer", f"no retrieval needed — router rule: {decision.reason}",
                            signals={"query": query, "router": decision.strategy})
        return Decision("retrieve", f"call the retriever tool with {query!r} (router: {decision.strategy}: "
                                    f"{decision.reason})", signals={"query": query, "router": decision.strategy})

    def classify_complexity(self, question: str, known_entities: list[str]) -> Decision:
        decision = self.classify(question, known_entities)
        terms, _ = question_terms(question)
        parts = [p for p in asked_parts(question) if len(question_terms(p)[0]) >= 2]
        signals = {"router": decision.strategy, "router_reason": decision.reason, "asked_parts": len(parts)}
        if decision.strategy == "direct":
            return Decision("simple", f"answerable without documents — router rule: {decision.reason}",
                            signals=signals)
        if decision.strategy in ("graph", "web"):
            why = ("relations across documents (several hops)" if decision.strategy == "graph"
                   else "recent or outside facts (the corrective loop can add web results)")
            return Decision("complex", f"{why} — router: {decision.reason}", signals=signals)
        if len(parts) >= 2:
            return Decision("complex", f"{len(parts)} asked parts in one question: needs the checked loop",
                            signals=signals)
        return Decision("moderate", f"one fact from the documents ({len(terms)} key terms): one retrieval, then "
                                    "the answer", signals=signals)

    def grade_hallucination(self, question: str, answer: str, docs: list[Retrieved]) -> Any:
        from rag.engines.roles import Verdict

        context = "\n".join(d.text for d in docs)
        claims = claim_sentences(answer)
        rows, unsupported = [], []
        for sentence in claims:
            terms, _ = question_terms(sentence)
            if len(terms) < MIN_CLAIM_TERMS:
                continue
            cov = coverage_of(terms, context)
            ok = cov.score >= SUPPORT_MIN and not cov.missing_numbers  # a number not in the documents is invented
            rows.append({"sentence": sentence, "support": round(cov.score, 3), "supported": ok,
                         "missing": cov.missing[:6], "missing_numbers": cov.missing_numbers})
            if not ok:
                unsupported.append(sentence)
        if not docs:
            return Verdict("supported", 1.0, "no documents: nothing to check the answer against (direct answer)",
                           details={"sentences": rows, "unsupported": [], "checked": False})
        if not rows:
            return Verdict("supported", 1.0, "no claim sentence to check", details={"sentences": [],
                                                                                   "unsupported": []})
        share = sum(r["supported"] for r in rows) / len(rows)
        if unsupported:
            first = next(r for r in rows if not r["supported"])
            reason = (f"{len(unsupported)} of {len(rows)} sentence(s) lack support (key-term coverage < "
                      f"{SUPPORT_MIN}, or a number the documents do not hold); e.g. {first['sentence'][:80]!r} "
                      f"misses {_quote(first['missing'], 4)}")
            return Verdict("not_supported", round(share, 3), reason,
                           details={"sentences": rows, "unsupported": unsupported})
        return Verdict("supported", round(share, 3), f"all {len(rows)} sentence(s) have their key terms in the "
                                                    f"documents (coverage ≥ {SUPPORT_MIN})",
                       details={"sentences": rows, "unsupported": []})

    def grade_answer(self, question: str, answer: str, abstained: bool) -> Any:
        from rag.embeddings import cosine
        from rag.engines.roles import Verdict

        if abstained or not (answer or "").strip():
            return Verdict("not_useful", 0.0, "the answer says the documents do not answer the question",
                           details={"abstained": True})
        terms, focus = question_terms(question)
        cov = coverage_of(terms, answer, focus)
        lo, hi = self.similarity_range()
        sim = cosine(self.query_embedding(question), self.embedder.embed_documents([answer[:1500]])[0])
        sim_n = min(1.0, max(0.0, (sim - lo) / (hi - lo)))
        details = {"coverage": round(cov.score, 3), "similarity": round(sim, 3), "similarity_rescaled": round(sim_n, 3),
                   "missing": cov.missing}
        score = round(max(cov.score, sim_n), 3)
        if cov.content_hits >= ANSWER_MIN_HITS or sim_n >= ANSWER_SIMILARITY_MIN:
            return Verdict("useful", score, f"addresses the question: {cov.summary()}, similarity {sim:.2f}",
                           details=details)
        return Verdict("not_useful", score, f"does not address the question: none of its asked-about words "
                                            f"({cov.summary()}) and similarity {sim:.2f} "
                                            f"(rescaled {sim_n:.2f} < {ANSWER_SIMILARITY_MIN})", details=details)

    def refine(self, question: str, doc: Retrieved) -> Any:
        from rag.engines.roles import Verdict

        sentences = split_sentences(doc.text) or [doc.text]
        if doc.tool == "graph" or len(sentences) == 1:
            return Verdict("kept_whole", 1.0, "one fact or one sentence: kept whole",
                           details={"kept": [doc.text], "dropped": []})
        terms, focus = question_terms(question)
        scored = []
        for sentence in sentences:
            cov = coverage_of(terms, sentence, focus)
            hit = cov.content_hits > 0 or any(cov.credit.get(n, 0) > 0 for n in cov.numbers)
            scored.append((sentence, cov.score, hit))
        best = max(score for _, score, _ in scored)
        kept = [s for s, score, hit in scored if hit and score >= STRIP_KEEP * best]
        if not kept:
            # no asked-about word as written (e.g. a Korean question over an English document): keep the
            # statements closest in meaning (the language-centred sentence scores the grader uses), never a bare
            # heading; the first sentence only when nothing scores at all
            evidence = self.sentence_evidence(question, [doc])[0]
            top = evidence.best_score
            kept = [u.text for u, sc in zip(evidence.units, evidence.scores) if top > 0 and sc >= STRIP_KEEP * top]
            if kept:
                reason = (f"no sentence has an asked-about word {_quote(terms, 4)}: kept the {len(kept)} statement(s) "
                          f"closest in meaning (semantic score ≥ {STRIP_KEEP:.0%} of the best, {top:.2f})")
            else:
                kept = [max(scored, key=lambda x: x[1])[0]]
                reason = (f"no sentence has an asked-about word {_quote(terms, 4)} or is close in meaning: kept the "
                          "best-covering one")
        else:
            reason = (f"kept {len(kept)} of {len(sentences)} sentences covering at least {STRIP_KEEP:.0%} of the best "
                      f"sentence's share of the asked-about words {_quote(terms, 4)}")
        dropped = [s for s, _, _ in scored if s not in kept]
        return Verdict("refined", round(len(kept) / len(sentences), 3), reason,
                       details={"kept": kept, "dropped": dropped, "language": language_of(question)})


__all__ = ["Critics", "claim_sentences", "SUPPORT_MIN"]
