"""Graph retrieval: seed entities, k-hop expansion, facts with their evidence sentences.

Seeds are the known entities named in the question, plus (weighted down) those named in the top
vector hit, so "the team that built Orbit" still reaches the team through its chunk. Relations
within ``settings.graph_hops`` hops come back as documents: the evidence sentence and the triple. A question that
asks more relations than that (``asked_predicates``: "who leads the team that built X" asks two) is followed as many
hops as it asks, up to ``MAX_HOPS``: the setting is the depth of a plain question, not a cap on a chain question.

Aliases: a document that writes "Name (다른 표기)" records an ``also_known_as`` fact. Such a fact costs no hop: a
seed starts under all its names, and a chain that reaches "품질관리팀" goes on from "Quality Control Team". The
facts of one alias group are shown under one name (the one the question writes, else one in the question's script);
the evidence sentence stays as written.

Scoring, transparent and recorded in each result's metadata:
- a 1-hop fact: 0.5, + 0.2 when it touches an entity named in the question, + 0.2 when its predicate
  is what the question asks about (``PREDICATE_CUES``: "어디"/"where" -> located_in, "팀장"/"leads"
  -> leads, ...), + 0.1 * share of the question's key terms found in the fact; ``related_to`` x 0.7;
- a fact at hop n > 1: half the best score of the hop n-1 facts it connects to, times
  (0.6 + 0.2 cue + 0.2 key terms) — always below its parent, so the score decreases with the hop;
  here the cue counts only for a predicate the parent fact did not already answer;
- one result per triple (the best-scored evidence sentence);
- facts reached only from vector-hit seeds: x 0.3 when the question names entities itself, so
  they only fill slots the question's own facts leave free.
Half of ``top_k`` (rounded down) is kept for facts beyond hop 1 when there are any, so a 2-hop
chain is not crowded out by many 1-hop facts.
"""
from __future__ import annotations

import re
from functools import lru_cache
from itertools import permutations
from typing import Any

from rag.config import Settings
from rag.engines.offline.parts import asked_parts
from rag.engines.offline.rules import DATA_FLOW_CUES, MAKER_CUES, TEAM_MEMBER_CUES, ZH_HEAD_OF, ZH_HEAD_TITLE_END
from rag.graphstore import entity_key, relation_id
from rag.textutil import _HAN_RE, dominant_language, key_terms, tokenize
from rag.extract import ALIAS_PREDICATE
from rag.types import Relation, Retrieved, ToolUnavailable

SEEDS_FROM_QUESTION = 8
VECTOR_HITS_FOR_SEEDS = 1
SEEDS_PER_HIT = 3
# a chain question that names no entity: the vector hits whose best sentences may name the entity it describes
# (chosen, not tuned: the default top k)
DESCRIBED_HITS = 4
SENTENCES_PER_HIT = 2  # chosen, not tuned: the best sentence that names an entity, and one more
NAMES_PER_SENTENCE = 8  # chosen, not tuned: every name a described sentence holds ("품질연구실 국보미 연구원" holds three)
HIT_SEED_WEIGHT = 0.3
RELATED_TO_WEIGHT = 0.7
MAX_HOPS = 4  # chosen, not tuned: the longest chain a question asks that is still followed
# relations a chain reaches from their target ("who leads the team" → person —leads→ team); the others from their
# source. A chain fact walked the other way counts AGAINST_WEIGHT of its score (chosen, not tuned: half)
BACKWARD_PREDICATES = frozenset({"leads", "owns"})
AGAINST_WEIGHT = 0.5

_ZH_HEAD_CUES = frozenset(f"{unit}长" for unit in ZH_HEAD_OF)  # 组长, 部长 … (rules.ZH_HEAD_OF)

# words in a question that say which kind of fact it asks for (language: Korean, English, Chinese)
PREDICATE_CUES: dict[str, tuple[str, ...]] = {
    "located_in": ("어디", "어느 도시", "도시", "위치", "본사", "에 있", "where", "located", "headquarter", "city",
                   "based in", "哪里", "位于", "总部", "城市"),
    "developed_by": ("개발", "만든", "만들", "제작", "제안", "고안", "developed", "created", "built", "made",
                     "proposed", "invented", "designed", "开发", "研发", "制造", "提出") + MAKER_CUES,
    "founded_by": ("설립", "창업", "창립", "founded", "founder", "established", "创立", "创办", "创始"),
    "leads": ("팀장", "이끄", "이끈", "리더", "책임자", "대표", "lead", "leads", "head", "manager", "manages", "负责人",
              "领导", "带领", "主管") + tuple(sorted(_ZH_HEAD_CUES)),
    "owns": ("담당", "맡", "운영", "owns", "owner", "responsible", "in charge", "operates", "负责", "运营"),
    "belongs_to": ("소속", "어느 팀", "어느 대학", "대학", "근무", "belong", "member", "which team", "works at",
                   "university", "professor", "属于", "隶属", "成员", "大学") + TEAM_MEMBER_CUES,
    "part_of": ("일부", "자회사", "part of", "subsidiary", "一部分", "子公司"),
    "uses": ("사용", "활용", "이용", "쓰는", "쓴다", "쓰인", "쓰이", "탑재", "uses", "use", "using", "used", "based on",
             "使用", "采用", "用于") + DATA_FLOW_CUES,
    "acquired": ("인수", "acquired", "bought", "acquisition", "收购"),
}


def fact_text(rel: Relation) -> str:
    return f"{rel.evidence}\n({rel.source} —{rel.predicate}→ {rel.target})"


# a Latin cue is a word of the question, or its start with an inflection: "lead" in "leads" / "leader", "use" in
# "used", never inside another word ("use" in "because", "head" in "headquartered")
_LATIN_CUE_END = r"(?:s|es|d|ed|ing|er|ers)?(?![a-z])"


@lru_cache(maxsize=None)
def _cue_pattern(cue: str) -> re.Pattern[str]:
    if re.fullmatch(r"[a-z][a-z ]*", cue):
        return re.compile(rf"(?<![a-z]){re.escape(cue)}{_LATIN_CUE_END}")
    if cue in _ZH_HEAD_CUES:  # 组长 …, not 团队长期 (rules.ZH_HEAD_TITLE)
        return re.compile(re.escape(cue) + ZH_HEAD_TITLE_END)
    return re.compile(re.escape(cue))  # Korean / Chinese cues: a part of a word (no spaces between morphemes)


def _cue_hits(q: str) -> list[tuple[str, int, int]]:
    """(predicate, start, end) of every cue in the case-folded question, except a cue inside a longer cue of another
    relation ("负责" in "负责人": the question asks who leads, not who is in charge)."""
    hits = [(pred, m.start(), m.end()) for pred, cues in PREDICATE_CUES.items() for c in cues
            for m in _cue_pattern(c).finditer(q)]
    return [h for h in hits if not any(o[0] != h[0] and o[1] <= h[1] and h[2] <= o[2] and o[2] - o[1] > h[2] - h[1]
                                       for o in hits)]


def _states_relation(sentence: str, predicate: str) -> bool:
    """Does the sentence hold a cue of the relation (``PREDICATE_CUES``: "supplied", "made", "개발")?"""
    return any(pred == predicate for pred, _, _ in _cue_hits(sentence.casefold()))


def asked_predicates(question: str) -> set[str]:
    return {pred for pred, _, _ in _cue_hits(question.casefold())}


# language: Korean and Chinese put a described thing before what the question asks about it
_HEAD_FINAL_RE = re.compile(r"[\uac00-\ud7a3\u4e00-\u9fff]")


def predicate_order(question: str, entities: list[str], described: bool = False) -> list[str]:
    """The asked relations in the order a chain question implies: the one whose cue is nearest to the named entity
    (either end of its name) first ("Who heads the team that built the system Coldtrack uses" → uses, developed_by,
    leads; "VaxAlert가 읽어 오는 시스템, 그거 만든 팀 팀장" → uses, developed_by, leads), at most MAX_HOPS. []
    unless the question asks two relations or more and names one of ``entities`` as written.

    ``described``: the question names no entity but describes it ("the dashboard that raised no alert in the
    November outage"); the description stands where the language puts a described thing: before what is asked
    about it in Korean and Chinese ("…没报警的那个看板是哪个团队开发的？团队负责人是谁？" → developed_by, leads),
    after it in English ("Who leads the team that built the dashboard that …" → developed_by, leads)."""
    q = question.casefold()
    spans = [(m.start(), m.end()) for e in entities if e for m in re.finditer(re.escape(e.casefold()), q)]
    if not spans and described:
        at = 0 if _HEAD_FINAL_RE.search(question) else len(q)
        spans = [(at, at)]
    if not spans:
        return []
    where: dict[str, int] = {}
    for pred, h, _ in _cue_hits(q):
        near = min(min(abs(h - a), abs(h - b)) for a, b in spans)
        where[pred] = min(where.get(pred, near), near)
    return sorted(where, key=lambda p: where[p])[:MAX_HOPS] if len(where) >= 2 else []


def scored_chain(ranked: list[tuple[float, int, Relation, float]], start: set[str],
                 order: list[str]) -> tuple[float, list[tuple[float, int, Relation, float]]]:
    """(total score, chain): the longest chain of facts from a question entity whose relations follow ``order``
    (each fact starts where the one before ended); ties: the better-scored chain. (0.0, []) without an order or when
    no chain has two facts.
    One pass per relation of ``order`` over the facts of that relation (best chain per entity), so the cost is
    linear in the facts, whatever the order's length."""
    if not order:
        return 0.0, []
    # best[entity] = (total score, chain) of the best chain ending at that entity after the relations so far; every
    # chain of one step has the same length, so the total decides among them
    best: dict[str, tuple[float, list]] = {e: (0.0, []) for e in start}
    found: tuple[float, list] = (0.0, [])
    for pred in order:
        step: dict[str, tuple[float, list]] = {}
        for entry in ranked:
            rel = entry[2]
            if rel.predicate != pred:
                continue
            ends = (entity_key(rel.source), entity_key(rel.target))
            for here, there in (ends, ends[::-1]):
                # a chain reads a relation the way the question asks it: "the system X pulls from" is X —uses→ it,
                # "the team that built it" it —developed_by→ team, "who leads the team" person —leads→ team; a fact
                # walked against that way counts half ("Daybreak uses X" is not the system X pulls from)
                score = entry[0] * (1.0 if (here == ends[0]) != (pred in BACKWARD_PREDICATES) else AGAINST_WEIGHT)
                if here in best and best[here][0] + score > step.get(there, (-1.0, []))[0]:
                    step[there] = (best[here][0] + score, best[here][1] + [entry])
        if not step:
            break
        best = step
        found = max(step.values(), key=lambda c: c[0])  # longer than any chain before it
    return found if len(found[1]) >= 2 else (0.0, [])


def chain_facts(ranked: list[tuple[float, int, Relation, float]], start: set[str],
                order: list[str]) -> list[tuple[float, int, Relation, float]]:
    """The chain of ``scored_chain`` without its score."""
    return scored_chain(ranked, start, order)[1]


def ordered_chain(ranked: list[tuple[float, int, Relation, float]], start: set[str],
                  order: list[str]) -> list[tuple[float, int, Relation, float]]:
    """``chain_facts`` in the order the question implies; when the facts do not follow that order through every
    asked relation, another order of the same relations whose chain goes through all of them (the best-scored one:
    a fact walked against the way its relation is asked counts less). The order is read from where each cue sits
    beside the named entity, which a question can break: "Pourboard gets its keg levels from one of our other
    systems. Which one is that, and who leads the team that built it?" names "leads" before "built", but a person
    leads the team that built the system, not the system. A shorter chain of another order is never taken: it
    may skip the relation the question starts from ("Coldmap —developed_by→ …" for the system Coldmap uses)."""
    chain = chain_facts(ranked, start, order)
    if len(chain) >= len(order):
        return chain
    full = [found for other in permutations(order) if list(other) != list(order)
            for found in [scored_chain(ranked, start, list(other))] if len(found[1]) >= len(order)]
    return max(full, key=lambda found: found[0])[1] if full else chain


# language: a name spelled out in capitalised words ("Reciprocal Rank Fusion", "Quality Control Team") and an acronym
# ("RRF", "QCT"); a name's initials are the first letters of its words
_SPELLED_OUT = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+")
_ACRONYM = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2,6}(?![A-Za-z0-9])")


def initials(name: str) -> str:
    """"Reciprocal Rank Fusion" → "RRF"."""
    return "".join(word[0] for word in name.split())


class GraphTool:
    name = "graph"

    def __init__(self, kb: Any, settings: Settings) -> None:
        self.kb = kb
        self.settings = settings

    def available(self) -> tuple[bool, str]:
        try:
            counts = self.kb.graph.counts()
        except ToolUnavailable as exc:  # switched off or unreachable; its message says what to do.
            return False, str(exc)  # Anything else is a fault: it propagates and the step records an error.
        if counts.get("relations", 0) == 0:
            return False, "the knowledge graph has no facts yet: ingest documents first"
        return True, f"{counts.get('entities', 0)} entities, {counts.get('relations', 0)} relations"

    def seeds(self, query: str, across: dict[str, str]
              ) -> tuple[list[str], list[str], dict[str, list[tuple[Retrieved, str, str]]]]:
        """(entities named in the question, entities named in the top vector hit, described entities). A question's
        word that only shares its letters with a name ("how" with a heading's "HOW") is no seed
        (``written_as_name``); ``across``: the entities the question names in another script
        (``romanized_matches``, ``loanword_matches``). Described entities: when a chain question names none, the
        names in the best-matching sentences of the vector hits, each with the hit whose sentence names it."""
        from rag.extract import written_as_name

        graph = self.kb.graph
        from_question = [name for name in graph.search_entities(query, limit=SEEDS_FROM_QUESTION * 2)
                         if written_as_name(query, name) or entity_key(name) not in entity_key(query)]
        from_question = from_question[:SEEDS_FROM_QUESTION]
        from_question += [n for n in across if n not in from_question]
        from_hits: list[str] = []
        described = not from_question and len(asked_predicates(query)) >= 2
        # the description is the first thing a chain question asks ("Who drew up the checklist …, and who heads the
        # team she's on?"; Korean and Chinese put it first too): the later parts ask the chain's hops and would match
        # any team lead's sentence. (The part that asks the fewest relations lost F mh-03: "那个运营看板是哪个团队开发的"
        # holds the cue 运营 in its description.) A question asked in one part is its own description
        parts = asked_parts(query) if described else []
        description = parts[0] if len(parts) >= 2 else query
        try:
            hits = self.kb.tools()["vector"].run(query, VECTOR_HITS_FOR_SEEDS, by_parts=False)
            described_hits = (self.kb.tools()["vector"].run(description, DESCRIBED_HITS, by_parts=False)
                              if described else [])
        except ToolUnavailable:
            hits, described_hits = [], []
        if described_hits:
            # … and it may be answered in another language ("Who drew up the checklist …" over a Korean procedure):
            # the best chunks of the other languages too, by the channels fair across languages
            try:
                described_hits += self.kb.tools()["vector"].run(
                    description, DESCRIBED_HITS, by_parts=False, exclude_language=dominant_language(description),
                    exclude_ids={h.id for h in described_hits})
            except ToolUnavailable:
                pass  # the question's own language was searched; the graph answers from what it found
        by_description: dict[str, list[tuple[Retrieved, str, str]]] = {}
        # a chain question that names no entity describes it ("the dashboard that raised no alert in the November
        # outage"): the names in the sentences that match the description best — the hits whose best sentence
        # matches best first, and in each the sentences that name an entity, closest to the question first
        for hit, sentence, heading, names in self.described_by(description, described_hits) if described_hits else []:
            for name in names:
                by_description.setdefault(name, []).append((hit, sentence, heading))
        for hit in hits:
            for name in graph.search_entities(hit.text, limit=SEEDS_PER_HIT):
                if name not in from_question and name not in from_hits:
                    from_hits.append(name)
        return from_question, from_hits, by_description

    def described_by(self, query: str, hits: list[Retrieved]) -> list[tuple[Retrieved, str, str, list[str]]]:
        """(hit, sentence, its heading, the graph entities it names) for the ``SENTENCES_PER_HIT`` sentences of each
        hit that name one, closest to the question first (cosine of the stored sentence vectors, one language within
        a chunk); the hits whose best sentence matched best (language-centred z-score, rag.tools.vector) first."""
        import numpy as np

        from rag.sentences import store_for

        graph = self.kb.graph
        embedder = self.kb.embedder
        stored = store_for(self.settings.data_dir).get({h.id: h.text for h in hits}, embedder.name)
        q = np.asarray(embedder.embed_query(query), dtype=np.float32) if stored else None
        out: list[tuple[Retrieved, str, str, list[str]]] = []
        for hit in sorted(hits, key=lambda h: -float((h.metadata or {}).get("sentence_z") or 0.0)):
            units = stored.get(hit.id)
            if units is not None and q is not None and units.vectors.shape[1:] == q.shape:
                order = np.argsort(-(units.vectors @ q), kind="stable")
                sentences = [(units.units[int(k)].text, units.units[int(k)].heading) for k in order]
            else:  # no stored sentences (another embedder): the hit's best sentence only
                sentences = [((hit.metadata or {}).get("sentence") or "", "")]
            named = 0
            for t, h in sentences:  # one entity search per sentence (a round trip on Neo4j): stop when enough
                if named >= SENTENCES_PER_HIT:
                    break
                names = graph.search_entities(t, limit=NAMES_PER_SENTENCE) if t else []
                if names:
                    out.append((hit, t, h, names))
                    named += 1
        return out

    def romanized_matches(self, query: str, names: list[str] | None = None) -> dict[str, str]:
        """Hangul entities the question writes in Latin letters: "Garam Branch" names "가람분관" when a capitalised
        word of the question is the romanised name part (``rag.extract.romanized_stem``) of the entity.
        Returns {entity name: the question's words for it}. ``names``: the graph's entity names when the caller
        has read them already (``run`` reads them once for the three cross-script matchers)."""
        from rag.extract import romanized_stem

        phrases: dict[str, str] = {}
        for m in re.finditer(r"\b([A-Z][a-z]{3,}(?:-[a-z]+)?)((?:\s+[A-Z][a-z]+)*)", query):
            for form in (m.group(1).casefold(), m.group(1).casefold().replace("-", "")):
                phrases.setdefault(form, (m.group(1) + m.group(2)).strip())
        if not phrases:
            return {}
        stems = {name: romanized_stem(name) for name in (names if names is not None else self.kb.graph.entity_names())}
        return {name: phrases[stem] for name, stem in stems.items() if stem in phrases}

    def loanword_matches(self, query: str, names: list[str] | None = None) -> dict[str, str]:
        """Latin entities the question writes in Hangul: "프루프라인이 … 끌어오는 시스템" names "Proofline" when the
        consonant skeleton of a Hangul word (``rag.romanize.loanword_key``, a particle after it dropped) is that of
        exactly one Latin entity name, and at least ``LOANWORD_KEY_MIN`` letters long.
        Returns {entity name: the question's word for it}; ``names`` as for ``romanized_matches``."""
        from rag.romanize import LOANWORD_KEY_MIN, loanword_key

        words = re.findall(r"[\uac00-\ud7a3]{2,}", query)
        if not words:
            return {}
        by_key: dict[str, list[str]] = {}
        for name in names if names is not None else self.kb.graph.entity_names():
            if re.fullmatch(r"[A-Za-z][A-Za-z0-9 .&'-]*", name):
                by_key.setdefault(loanword_key(name), []).append(name)
        out: dict[str, str] = {}
        for word in words:
            for form in dict.fromkeys((word, *(word[:-n] for n in (1, 2) if len(word) - n >= 2))):
                key = loanword_key(form)
                if len(key) >= LOANWORD_KEY_MIN and len(by_key.get(key, [])) == 1:
                    out.setdefault(by_key[key][0], form)
                    break
        return out

    def acronym_matches(self, query: str, names: list[str] | None = None) -> dict[str, str]:
        """Entities the question names by their initials, or in full where the graph has the initials: "Reciprocal
        Rank Fusion을 제안한 사람" names "RRF", "Who proposed RRF?" names "Reciprocal Rank Fusion" (``initials``: the
        capitals of two or more capitalised words). Returns {entity name: the question's words for it}; ``names``
        as for ``romanized_matches``."""
        spelled = {m.group(0): initials(m.group(0)) for m in _SPELLED_OUT.finditer(query)}
        capitals = set(_ACRONYM.findall(query))
        if not spelled and not capitals:
            return {}
        out: dict[str, str] = {}
        names = names if names is not None else self.kb.graph.entity_names()
        present = set(names)
        for phrase, short in spelled.items():
            if short in present:
                out.setdefault(short, phrase)
        if capitals:
            for name in names:
                if _SPELLED_OUT.fullmatch(name) and initials(name) in capitals:
                    out.setdefault(name, initials(name))
        return out

    def alias_groups(self, names: list[str]) -> dict[str, list[str]]:
        """entity key -> every name of its alias group ("Quality Control Team" ↔ "품질관리팀"), from the graph's
        ``also_known_as`` facts (recorded at extraction when a document writes "Name (다른 표기)")."""
        graph = self.kb.graph
        groups: dict[str, list[str]] = {entity_key(n): [n] for n in names}
        frontier = list(names)
        for _ in range(3):  # an alias of an alias
            if not frontier:
                break
            grown: list[str] = []
            for rel, _hop in graph.expand(frontier, hops=1, limit=200):
                if rel.predicate != ALIAS_PREDICATE:
                    continue
                members = {entity_key(rel.source), entity_key(rel.target)}
                for key in members & set(groups):
                    for other in (rel.source, rel.target):
                        if other not in groups[key]:
                            groups[key].append(other)
                for other in (rel.source, rel.target):
                    if entity_key(other) not in groups:
                        groups[entity_key(other)] = [other]
                        grown.append(other)
            frontier = grown
        # every member of a group sees the whole group
        merged: dict[str, list[str]] = {}
        for key, members in groups.items():
            union = list(members)
            for m in members:
                for n in groups.get(entity_key(m), []):
                    if n not in union:
                        union.append(n)
            merged[key] = union
        return merged

    def expand(self, seeds: list[str], hops: int, limit: int) -> tuple[list[tuple[Relation, int]], dict[str, list[str]]]:
        """Facts within ``hops`` of the seeds, where an alias fact costs no hop: the entity a chain reaches under one
        name ("품질관리팀") goes on under its other ("Quality Control Team"). Returns (facts with their hop,
        the alias groups met)."""
        if not seeds:
            return [], {}
        graph = self.kb.graph
        groups = self.alias_groups(seeds)
        frontier = sorted({n for members in groups.values() for n in members})
        visited = {entity_key(n) for n in frontier}
        found: dict[str, tuple[Relation, int]] = {}
        for hop in range(1, max(hops, 0) + 1):
            if not frontier:
                break
            reached: list[str] = []
            for rel, _ in graph.expand(frontier, hops=1, limit=limit):
                if rel.predicate == ALIAS_PREDICATE:
                    continue
                rid = relation_id(rel)
                if rid not in found:
                    found[rid] = (rel, hop)
                reached += [n for n in (rel.source, rel.target) if entity_key(n) not in visited]
            if len(found) >= limit:
                break
            new_groups = self.alias_groups(list(dict.fromkeys(reached)))
            groups.update(new_groups)
            frontier = sorted({n for members in new_groups.values() for n in members if entity_key(n) not in visited})
            visited |= {entity_key(n) for n in frontier}
        return list(found.values()), groups

    @staticmethod
    def _canonical(query: str, groups: dict[str, list[str]]) -> dict[str, str]:
        """entity key -> the name to show for its alias group: the one the question writes, else one in the
        question's script, else the first."""
        from rag.extract import _script

        q_key = entity_key(query)
        script = _script(query)
        out: dict[str, str] = {}
        for key, members in groups.items():
            if len(members) < 2:
                continue
            named = [m for m in members if entity_key(m) in q_key]
            same = [m for m in members if _script(m) == script]
            choice = (named or same or members)[0]
            for m in members:
                out[entity_key(m)] = choice
        return out

    @staticmethod
    def _renamed(rel: Relation, canonical: dict[str, str]) -> Relation:
        from dataclasses import replace

        src = canonical.get(entity_key(rel.source), rel.source)
        tgt = canonical.get(entity_key(rel.target), rel.target)
        return rel if (src, tgt) == (rel.source, rel.target) else replace(rel, source=src, target=tgt)

    def _score(self, found: list[tuple[Relation, int]], terms: set[str], named: set[str], asked: set[str],
               weight: float) -> dict[tuple[str, str, str], tuple[float, int, Relation, float]]:
        """(source key, predicate, target key) -> (score, hop, relation, key-term coverage); one entry per
        triple (the best-scored evidence sentence)."""
        scored: dict[tuple[str, str, str], tuple[float, int, Relation, float]] = {}
        # hop -> entity key -> (best score of a fact touching it, that fact's predicate)
        best_at_entity: dict[int, dict[str, tuple[float, str]]] = {}
        for rel, hop in sorted(found, key=lambda item: item[1]):
            keys = (entity_key(rel.source), entity_key(rel.target))
            fact_text = f"{rel.evidence} {rel.source} {rel.target}"
            fact_tokens = set(tokenize(fact_text))
            # a Chinese key term is a word (jieba), the tokens are bigrams: it is looked up as written
            found_terms = {t for t in terms if t in fact_tokens or (_HAN_RE.search(t) and t in fact_text)}
            coverage = len(found_terms) / len(terms) if terms else 0.0
            if hop == 1:
                cue = 1.0 if rel.predicate in asked else 0.0
                score = 0.5 + (0.2 if named & set(keys) else 0.0) + 0.2 * cue + 0.1 * coverage
            else:
                parents = [best_at_entity.get(hop - 1, {}).get(k, (0.0, "")) for k in keys]
                parent_score, parent_predicate = max(parents)
                # the cue counts for the part of the question the previous hop did not answer
                cue = 1.0 if rel.predicate in asked - {parent_predicate} else 0.0
                score = 0.5 * parent_score * (0.6 + 0.2 * cue + 0.2 * coverage)
            if rel.predicate == "related_to":
                score *= RELATED_TO_WEIGHT
            triple = (keys[0], rel.predicate, keys[1])
            if triple not in scored or scored[triple][0] < score * weight:
                scored[triple] = (score * weight, hop, rel, coverage)
            level = best_at_entity.setdefault(hop, {})
            for k in keys:
                level[k] = max(level.get(k, (0.0, "")), (score, rel.predicate))
        return scored

    def run(self, query: str, top_k: int) -> list[Retrieved]:
        # a question that asks a longer chain ("who leads the team that operates the system X uses": three
        # relations) is followed that far, up to MAX_HOPS
        hops = max(self.settings.graph_hops, min(MAX_HOPS, len(asked_predicates(query))))
        limit = max(50, top_k * 10)
        # The store raises ToolUnavailable when it is unreachable; any other exception is a fault, not "unavailable":
        # it propagates and the retrieval step records it as an error.
        graph = self.kb.graph
        names = graph.entity_names()  # read once for the three cross-script matchers (one query on Neo4j)
        romanized = self.romanized_matches(query, names)
        across = {**romanized, **self.loanword_matches(query, names), **self.acronym_matches(query, names)}
        from_question, from_hits, by_description = self.seeds(query, across)
        if not from_question and not from_hits and not by_description:
            return []
        # the names as the question writes them (before alias renaming): a name matched across scripts by the words
        # the question uses for it ("Garam Branch" for 가람분관, "프루프라인" for Proofline)
        written = list(from_question) + list(across.values())
        found_q, names_q = self.expand(from_question, hops, limit)
        found_h, names_h = self.expand(from_hits, hops, limit)
        found_d, names_d = self.expand(list(by_description), hops, limit)
        canonical = self._canonical(query, {**names_d, **names_h, **names_q})
        for name, phrase in romanized.items():  # "가람분관 (Garam Branch)"
            shown = f"{name} ({phrase})"
            for member in {**names_q, **names_h}.get(entity_key(name), [name]):
                canonical[entity_key(member)] = shown
        original_ids: dict[int, str] = {}  # a fact renamed to its alias group's name keeps the stored fact's id

        def renamed(rel: Relation) -> Relation:
            new = self._renamed(rel, canonical)
            original_ids[id(new)] = relation_id(rel)
            return new

        found_q = [(renamed(rel), hop) for rel, hop in found_q]
        found_h = [(renamed(rel), hop) for rel, hop in found_h]
        found_d = [(renamed(rel), hop) for rel, hop in found_d]
        from_question = list(dict.fromkeys(canonical.get(entity_key(e), e) for e in from_question))
        from_hits = [e for e in dict.fromkeys(canonical.get(entity_key(e), e) for e in from_hits)
                     if e not in from_question]

        terms = set(key_terms(query))
        named = {entity_key(e) for e in from_question}
        asked = asked_predicates(query)
        scored = self._score(found_q, terms, named, asked, 1.0)
        # facts reached only through vector-hit seeds rank after every fact reached from the question
        for triple, entry in self._score(found_h, terms, named, asked,
                                         HIT_SEED_WEIGHT if from_question else 1.0).items():
            scored.setdefault(triple, entry)

        ranked = sorted(scored.values(), key=lambda e: (-e[0], e[1], relation_id(e[2])))
        # a chain question: the facts that follow its relations in the order it implies come first
        anchor = ""
        if named:
            chain = ordered_chain(ranked, named, predicate_order(query, written))[:top_k]
        else:
            # the described entity: the first of the names in the best-matching sentences that a whole chain starts
            # from; its chain comes first, and nothing else changes. The description may hold a cue of its own
            # ("运营看板", an operations dashboard, is no "operates" fact): when no name starts the whole chain,
            # its later relations are tried (two at least)
            order = predicate_order(query, [], described=True)
            facts = sorted(self._score(found_d, terms, named, asked, 1.0).values(),
                           key=lambda e: (-e[0], e[1], relation_id(e[2])))
            anchor, chain = next(((e, c) for k in range(len(order) - 1) for e in by_description
                                  for c in [chain_facts(facts, {entity_key(canonical.get(entity_key(e), e))},
                                                        order[k:])] if len(c) == len(order) - k),
                                 ("", []))
            if not anchor and len(order) == 2:
                # "The cameras … were supplied and installed by Oreum Vision, …": the sentence that describes the
                # thing states the first relation itself (its cue, of an entity no name gives the graph): the chain
                # goes on from the name it gives
                end = 1 if order[1] in BACKWARD_PREDICATES else 0  # "who leads it": the anchor is the fact's target
                anchor, chain = next(((e, [f]) for e in by_description
                                      if any(_states_relation(d[1], order[0]) for d in by_description[e])
                                      for f in facts if f[2].predicate == order[1]
                                      and entity_key((f[2].source, f[2].target)[end])
                                      == entity_key(canonical.get(entity_key(e), e))), ("", []))
            chain = chain[:top_k]
            if anchor:
                shown = canonical.get(entity_key(anchor), anchor)
                from_hits = [shown] + [e for e in from_hits if e != shown]

        def triple(e: tuple) -> tuple[str, str, str]:
            return entity_key(e[2].source), e[2].predicate, entity_key(e[2].target)

        in_chain = {triple(e) for e in chain}
        rest = [e for e in ranked if triple(e) not in in_chain]
        reserved = max(0, top_k // 2 - sum(1 for e in chain if e[1] > 1))
        deeper = [e for e in rest if e[1] > 1][:reserved]
        others = [e for e in rest if e not in deeper][: max(0, top_k - len(chain) - len(deeper))]
        chosen = chain + sorted(deeper + others, key=lambda e: (-e[0], e[1], relation_id(e[2])))

        out: list[Retrieved] = []
        if anchor and chain:
            # glass box: the sentence the chain starts from, with the name it gave — one that describes the entity,
            # not one that states a fact of the chain ("X was built by T" matches "which team built it" as well)
            stated = {rel.evidence.strip() for _, _, rel, _ in chain}
            hit, sentence, heading = next((d for d in by_description[anchor] if d[1].strip() not in stated),
                                          by_description[anchor][0])
            meta = hit.metadata or {}
            out.append(Retrieved(
                id=f"{hit.id}#described", text=sentence, source=hit.source,
                score=round(chain[0][0], 6), tool="graph", doc_id=hit.doc_id, chunk_index=hit.chunk_index,
                metadata={"described_entity": canonical.get(entity_key(anchor), anchor), "chunk_id": hit.id,
                          "evidence": sentence, "heading": heading, "sentence_z": meta.get("sentence_z"),
                          "seed_entities": from_question + from_hits, "question_entities": from_question,
                          "hit_entities": from_hits, "asked_predicates": sorted(asked)}))
        for score, hop, rel, coverage in chosen:
            rid = original_ids.get(id(rel), relation_id(rel))
            chunk_index = rel.chunk_id.rsplit(":", 1)[-1]
            out.append(Retrieved(
                id=rid, text=fact_text(rel), source=rel.source_file or "graph", score=round(score, 6), tool="graph",
                doc_id=rel.doc_id, chunk_index=int(chunk_index) if chunk_index.isdigit() else None,
                metadata={"triple": [rel.source, rel.predicate, rel.target], "hop": hop, "chunk_id": rel.chunk_id,
                          "evidence": rel.evidence, "seed_entities": from_question + from_hits,
                          "question_entities": from_question, "hit_entities": from_hits,
                          "asked_predicates": sorted(asked), "term_coverage": round(coverage, 4)},
            ))
        return out
