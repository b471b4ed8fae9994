"""classify: keyword rules in a fixed order (direct → web → graph → vector)."""
from __future__ import annotations

import re
from typing import Sequence

from rag.engines.offline.arithmetic import extract_expression, list_aggregate, unit_conversion
from rag.engines.offline.relations import asked_relations
from rag.engines.offline.rules import (ARITHMETIC_PATTERNS, ASKING, BARE_INTERROGATIVES, CHAIN_PATTERN, CODE_PATTERNS,
                                       GENERAL_ATTRIBUTE, GENERAL_KNOWLEDGE, HOW_CONNECTED, PERIOD_MARKERS, PRESENT_MARKERS,
                                       MAKER_CUES, RELATION_MARKERS, RELATIVE_HOP_PATTERN, SLASHED_YEAR,
                                       SMALL_TALK, TRANSLATION_MARKERS, VALUE_QUESTION, WHICH_ORG_MARKERS)
from rag.engines.offline.parts import asking_clause
from rag.engines.offline.semantics import question_intents
from rag.engines.offline.temporal import temporal_markers, years_in
from rag.engines.offline.text import _contains_phrase, _norm, _quote, _specific, greeting_in
from rag.extract import written_as_name
from rag.types import Decision


class Router:
    """classify: keyword rules in a fixed order (direct → web → graph → vector) (part of ``OfflineEngine``)."""

    def classify(self, question: str, known_entities: list[str]) -> Decision:
        """The route rules below, then the question kind of seed 002 (``kinds.annotate_kind``: an aggregate question
        over a table the question names goes to sql)."""
        from rag.engines.offline.kinds import annotate_kind

        return annotate_kind(self, question, self._route(question, known_entities), known_entities)

    def _route(self, question: str, known_entities: list[str]) -> Decision:
        q = _norm(question)
        checked: list[str] = []

        checked.append("small talk")
        greeting = greeting_in(question)
        if greeting and not ASKING.search(question) and not self._names_a_topic(question):
            return Decision("direct", f"small talk '{greeting.group(0)}' and nothing asked → direct (no retrieval)",
                            signals={"rule": "small_talk", "matched": [greeting.group(0)], "checked": checked})
        checked.append("translation")
        hits = [m for m in TRANSLATION_MARKERS if m in q]
        if hits:
            return Decision("direct", f"translation request '{hits[0]}' → direct (no retrieval needed)",
                            signals={"rule": "translation", "matched": hits, "checked": checked})
        checked.append("arithmetic")
        unslashed = SLASHED_YEAR.sub(lambda m: " " if _season_or_date(m) else m.group(0), q)
        for pattern in ARITHMETIC_PATTERNS:
            m = re.search(pattern, unslashed)
            if m:
                shown = extract_expression(question) or m.group(0).strip()
                return Decision("direct", f"arithmetic expression '{shown}' → direct",
                                signals={"rule": "arithmetic", "matched": [shown], "checked": checked})
        c = unit_conversion(question)
        if c:
            return Decision("direct", f"unit conversion {c.value:g} {c.source} → {c.target} → direct (computed, no "
                            "retrieval)", signals={"rule": "arithmetic", "matched": [f"{c.source}→{c.target}"],
                                                   "checked": checked})
        aggregate = list_aggregate(question)
        if aggregate:
            return Decision("direct", f"{aggregate[0]} of a number list → direct (computed, no retrieval)",
                            signals={"rule": "arithmetic", "matched": [aggregate[0]], "checked": checked})
        checked.append("code syntax")
        for pattern in CODE_PATTERNS:
            m = re.search(pattern, q)
            if m:
                return Decision("direct", f"code-syntax question '{m.group(0).strip()[:40]}' → direct",
                                signals={"rule": "code_syntax", "matched": [m.group(0).strip()], "checked": checked})

        checked.append("general knowledge")
        frame = GENERAL_KNOWLEDGE.search(question)
        if frame:
            attribute = [m for m in GENERAL_ATTRIBUTE.finditer(question, frame.start()) if m.end() <= frame.end()]
            subject = self._general_subject(question, frame, attribute)
            if subject and not any(self.kb_mentions(t) for t in subject):
                return Decision("direct", f"general-knowledge question '{frame.group(0).strip()}' about "
                                f"{_quote(subject, 3)}, which the documents do not mention → direct",
                                signals={"rule": "general_knowledge", "matched": [frame.group(0).strip()],
                                         "subject": subject, "checked": checked})
            # the documents name the subject but never with what is asked ("中国" in a launch notice, never "首都"):
            # they do not answer it either
            words = sorted({m.group(0).lower() for m in attribute})
            if subject and words and not any(self.kb_mentions(t, w) for t in subject for w in words):
                return Decision("direct", f"general-knowledge question '{frame.group(0).strip()}' about "
                                f"{_quote(subject, 3)}: the documents mention it but never with {_quote(words)} → direct",
                                signals={"rule": "general_knowledge", "matched": [frame.group(0).strip()],
                                         "subject": subject, "attribute": words, "checked": checked})

        asked = asking_clause(question)
        if asked != question:
            # what the question asks decides where it goes, not its lead-in: "이번 주에 막 합류했는데요, …" has a time
            # of the asker's own, "품질안전팀에 새로 와서 Coldtrack 운영을 맡게 됐는데요, …" names a team and a system
            checked.append(f"lead-in '{question[:len(question) - len(asked)].strip()[:60]}' not read")
            question, q = asked, _norm(asked)
        checked.append("temporal")
        markers = temporal_markers(question)
        if markers and all(m in PRESENT_MARKERS for m in markers) and self._holds_subject(question, markers,
                                                                                          known_entities):
            # "밀다락 직원 지금 몇 명": the present state of something the documents hold (rules.PRESENT_MARKERS)
            checked.append(f"present-state marker '{markers[0]}' about something the documents hold")
            markers = []
        this_year = [m for m in markers if PERIOD_MARKERS.get(m) == "year"]
        if this_year and len(this_year) == len(markers) and self.kb_mentions(str(self.today().year)):
            # "올해 7월에 받은 감사": this year's dated event, and the documents mention this year → route on as a
            # document question (a year named as a number goes the same way below)
            checked.append(f"'{this_year[0]}' is {self.today().year}, which the documents mention")
            markers = []
        if markers:
            return Decision("web", f"temporal marker '{markers[0]}' → web (fresh information; the documents may be "
                            f"out of date)", signals={"rule": "temporal", "matched": markers, "checked": checked})
        today = self.today()
        dated: list[str] = []
        for year in years_in(question):
            covered = self.kb_mentions(str(year))
            if covered:
                dated.append(str(year))  # a dated event the documents cover: route on as a document question
            elif year > today.year or year >= today.year - self.rules.recent_years:
                return Decision("web", f"year {year} is recent (today is {today.isoformat()}) and the knowledge base "
                                "does not mention it → web",
                                signals={"rule": "temporal", "matched": [str(year)], "today": today.isoformat(),
                                         "checked": checked})
        if dated:
            checked.append(f"dated event covered by the documents ({', '.join(dated)})")

        checked.append("relation")
        entities = self._entities_in(question, known_entities)
        slots = self._asked_slots(question)
        relation = [m for m in RELATION_MARKERS if _contains_phrase(q, m) and _is_a_word(q, m)]
        which_org = [m for m in relation if m in WHICH_ORG_MARKERS]
        if which_org and not slots:
            # "which company installed …": asks for an organisation, but through no relation the graph stores
            relation = [m for m in relation if m not in WHICH_ORG_MARKERS]
            checked.append(f"'{which_org[0]}' without a stored relation")
        hop = RELATIVE_HOP_PATTERN.search(q)
        if hop and VALUE_QUESTION.search(q) and not slots:
            # "합작법인 부서장들이 … 몇 명이 얼마 동안 와요?": something described, then a value asked of it, no stored
            # relation asked — a lookup (and "합작법인" only looks like a verb's adnominal form)
            checked.append(f"'{hop.group(0).strip()}' before a value question")
            hop = None
        if hop:
            relation.append(hop.group(0).strip())
        if CHAIN_PATTERN.search(question):
            relation.append(CHAIN_PATTERN.search(question).group(0).strip())
        if HOW_CONNECTED.search(q):
            relation.append(HOW_CONNECTED.search(q).group(0))
        if len(slots) >= 2 and not VALUE_QUESTION.search(q):
            # "…를 만든 그룹의 리더는?", "是哪个组开发的？组长是谁？": two relations asked one after the other, a chain
            relation.append("chain of asked relations (" + " → ".join(sorted(slots)) + ")")
        if relation and not hop and not CHAIN_PATTERN.search(question) and "procedure" in question_intents(question):
            # "how do I …", "어떻게 신청하나요", "怎么申请": the steps are written in a document, whatever relation word
            # ("담당", "how is") the question also holds
            checked.append("procedure")
            return Decision("vector", f"asks how to do something (a procedure); relation word '{relation[0]}' "
                            "does not make it a graph question → vector (the steps are in a document)",
                            signals={"rule": "procedure", "matched": relation, "entities": entities,
                                     "checked": checked})
        if relation:
            why = f"relation pattern '{relation[0]}'"
            if entities:
                why += f" with graph entit{'y' if len(entities) == 1 else 'ies'} {_quote(entities, 3)}"
            return Decision("graph", why + " → graph",
                            signals={"rule": "relation", "matched": relation, "entities": entities, "checked": checked})
        checked.append("graph entities")
        value = VALUE_QUESTION.search(q)
        if len(entities) >= 2 and value:
            return Decision("vector", f"{len(entities)} graph entities ({_quote(entities, 4)}) but the question asks "
                            f"for a value ('{value.group(0)}') → vector (parameters are factual lookups)",
                            signals={"rule": "value_question", "entities": entities, "matched": [value.group(0)],
                                     "checked": checked})
        if len(entities) >= 2 and not slots:
            checked.append("no relation asked between them")
        elif len(entities) >= 2:
            return Decision("graph", f"{len(entities)} known graph entities ({_quote(entities, 4)}) → graph",
                            signals={"rule": "entities", "entities": entities, "checked": checked})

        why = "no temporal, relation, translation, arithmetic or code pattern"
        if entities:
            why += f"; 1 graph entity ({_quote(entities, 1)}) is not enough for graph"
        return Decision("vector", why + " → vector (factual lookup)",
                        signals={"rule": "default", "entities": entities, "checked": checked})

    def _holds_subject(self, question: str, markers: Sequence[str], known_entities: Sequence[str]) -> bool:
        """Whether a present-state question is about something the documents hold: it names a graph entity and at
        least one other of its words is mentioned by the knowledge base ("밀다락 직원 지금 몇 명": 밀다락, 직원) —
        not "the won to yuan exchange rate right now" (no entity), nor "지금 청주 날씨" (a city, but no weather)."""
        from rag.textutil import key_terms

        rest = re.sub("|".join(re.escape(m) for m in markers), " ", question, flags=re.I)
        entities = self._entities_in(rest, known_entities)
        if not entities:
            return False
        named = {_norm(e) for e in entities}
        words = [t for t in key_terms(rest) if len(t) >= 2 and not any(t in n or n in t for n in named)]
        return any(self.kb_mentions(t) for t in words)

    def _names_a_topic(self, question: str) -> bool:
        """Whether a greeting also names something the documents hold ("안녕하세요, 휴가 규정 부탁해요"): two or more of
        its words that are no greeting are mentioned by the knowledge base, so it is a request, not small talk."""
        from rag.textutil import key_terms

        words = [t for t in key_terms(question) if not SMALL_TALK.search(t) and len(t) >= 2]
        return sum(1 for t in words if self.kb_mentions(t)) >= 2

    @staticmethod
    def _asked_slots(question: str) -> set[str]:
        """The relations the graph stores that the question asks about, a bare "where" / "어디" not counted, nor whose
        product a thing is (rules.MAKER_CUES: "어느 회사 제품이에요?" is read in the passage that names the maker)."""
        q = question.lower()
        for word in BARE_INTERROGATIVES + MAKER_CUES:
            q = q.replace(word, " ")
        return asked_relations(q)

    def _general_subject(self, question: str, frame: re.Match, attribute: Sequence[re.Match] = ()) -> list[str]:
        """The content words of a general-knowledge question outside what it asks: those of the frame without its
        ``attribute`` when there are any ("그럼 중국의 수도는 어디야?" → 중국), else those before the frame ("中国的首都是
        哪座城市" → 中国, not the question's own words 哪座城市), else those after it ("the capital of France"), else the
        frame itself ("一公斤等于多少克": the unit question is its own subject)."""
        from rag.textutil import key_terms

        def words(text: str) -> list[str]:
            text = re.sub(r"(?<=[가-힣])(?:의|은|는|이|가|을|를)(?=\s|$)", "", text)
            return [t for t in key_terms(text) if len(t) >= 2][:4]

        before = question[:frame.start()]
        # "水的化学式", "물의 화학식": a one-character subject is still one
        short = re.sub(r"[的之\s?？,，]|의$", "", before.strip())
        # "중국의 수도": the frame holds its subject; what is left of it without the attribute
        starts = [frame.start()] + [a.end() for a in attribute]
        ends = [a.start() for a in attribute] + [frame.end()]
        inside = " ".join(question[i:j] for i, j in zip(starts, ends)) if attribute else ""
        return (words(inside) or words(before) or ([short] if re.fullmatch(r"[\u4e00-\u9fff가-힣]{1,3}", short) else [])
                or words(question[frame.end():]) or [frame.group(0).strip()])

    @staticmethod
    def _entities_in(question: str, known_entities: Sequence[str]) -> list[str]:
        q = _norm(question)
        found: list[str] = []
        for name in known_entities:
            n = _norm(name).strip()
            if not _specific(name):
                continue
            if _contains_phrase(q, n) and name not in found and written_as_name(question, name):
                found.append(name)
        # "Hanbit Labs" found: drop "Hanbit" when it is only part of a longer match
        return [e for e in found if not any(e != o and _norm(e) in _norm(o) for o in found)]


def _season_or_date(m: re.Match) -> bool:
    """"2026/27" (a season: the next year's last two digits) or "2026/3" / "2026/3/14" (a month, a day). A year
    over a number up to 12 ("2000/4") reads as a date, not a division; "2000/40" stays a division."""
    year, second, day = int(m.group(1)), int(m.group(2)), m.group(3)
    if day is not None:
        return 1 <= second <= 12 and 1 <= int(day) <= 31
    return second == (year + 1) % 100 or 1 <= second <= 12


# language: what may follow a Korean noun used as a relation marker ("사이에", "관계는", "소속된", "연결해"): a particle
# or a 하다 / 되다 / 이다 ending ("관계야", "관계란"); another syllable makes it a different word ("사이즈", "사이트", "관계자")
_NOUN_FOLLOWER = "은는이가을를의에와과도로만엔랑께하한할해했된되될돼인일입야예였라란"


def _is_a_word(norm_question: str, marker: str) -> bool:
    """A Korean relation marker is a word of its own: "사이" (between) is not the 사이 of "여행사이트" nor of "1호
    사이즈"; a one-word marker ends at a particle or a verb ending."""
    if not re.match(r"[가-힣]", marker):
        return True
    end = rf"(?:(?![가-힣])|(?=[{_NOUN_FOLLOWER}]))" if " " not in marker and len(marker) == 2 else ""
    return re.search(rf"(?<![가-힣]){re.escape(_norm(marker))}{end}", norm_question) is not None
