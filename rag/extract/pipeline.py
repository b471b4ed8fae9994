"""``extract``: one chunk's entities and relations — sentences, their mentions, aliases, the topic that stands for
an unnamed subject, then one relation (or a few) per sentence with the sentence as evidence."""
from __future__ import annotations

import re

from rag.extract.aliases import ALIAS_PREDICATE, _alias_pairs, _apply_aliases, _canonical_names
from rag.extract.kinds import _entity_type, _type_from_relations
from rag.extract.mention import Mention
from rag.extract.mentions import find_mentions
from rag.extract.mentions_en import mid_sentence_names
from rag.extract.names import _has_hangul
from rag.extract.relations import _associated_pair, _relation_for
from rag.extract.relations_en import _english_relation
from rag.extract.relations_zh import _chinese_relations
from rag.extract.tables import table_relations
from rag.extract.topic import _KO_TITLE_TOPIC_RE, _PRONOUN_SUBJECT_RE, TOPIC_SPAN, _zero_subject, group_reference
from rag.graphstore.base import entity_key
from rag.textutil import STOP_WORDS_EN, split_sentences
from rag.types import Entity, Extraction, Relation


_PARENTHESISED = re.compile(r"[(（][^()（）]*[)）]")


_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z-]*")


def short_names(text: str, per_sentence: list[tuple[str, list[Mention]]]) -> dict[str, str]:
    """{short name: full name}: the first word of a Latin name of two words or more ("Yunseul" of "Yunseul
    Metrology") stands for that name where the chunk writes it on its own — English names a company or a system in full
    once and by its first word after that. Only a word that is no common word (never written in lower case in the
    chunk, not an English stop word) and begins one such name of the chunk."""
    starts: dict[str, set[str]] = {}
    for _, mentions in per_sentence:
        for m in mentions:
            words = m.name.split()
            if len(words) >= 2 and _LATIN_WORD.fullmatch(words[0]) and words[0][0].isupper() and len(words[0]) >= 3:
                starts.setdefault(words[0], set()).add(m.name)
    lower = {w for w in _LATIN_WORD.findall(text) if w.islower()}
    return {w: next(iter(names)) for w, names in starts.items()
            if len(names) == 1 and w.lower() not in lower and w.lower() not in STOP_WORDS_EN
            and re.search(rf"\b{re.escape(w)}\b(?!\s+{re.escape(next(iter(names)).split()[1])})", text)}


def extract(text: str, doc_id: str, chunk_id: str, source_file: str = "") -> Extraction:
    """Entities and relations of one chunk; every relation carries its sentence as evidence.

    Aliases ("한빛랩스(Hanbit Labs)") are one entity under the name the chunk mentions first; every relation
    of the chunk uses that name, and one ``also_known_as`` relation (canonical -> alias) records the alias,
    since the graph store holds no alias list."""
    entities: dict[str, Entity] = {}
    relations: list[Relation] = []
    seen: set[tuple[str, str, str]] = set()
    sentences = split_sentences(text)
    known_names = mid_sentence_names(sentences)
    first_pass = [find_mentions(sentence, known_names) for sentence in sentences]
    known_korean = frozenset(m.name for ms in first_pass for m in ms if _has_hangul(m.name) and len(m.name) >= 2)
    per_sentence = [(sentence, find_mentions(sentence, known_names, known_korean) if known_korean else first)
                    for sentence, first in zip(sentences, first_pass)]
    canonical = _canonical_names(per_sentence)
    short = short_names(text, per_sentence)
    if short:  # "Yunseul Metrology (윤슬계측) … . Yunseul is a sensor maker based in Gumi.": the short name is the same
        per_sentence = [(sentence, find_mentions(sentence, known_names | frozenset(short), known_korean))
                        for sentence, _ in per_sentence]
        canonical = {**canonical, **{entity_key(k): canonical.get(entity_key(v), v) for k, v in short.items()}}
    for sentence, raw in per_sentence:
        for a, b, _ in _alias_pairs(sentence, raw):
            for alias in (a, b):
                key = entity_key(alias.name)
                name = canonical.get(key, alias.name)
                ident = (entity_key(name), ALIAS_PREDICATE, key)
                if key in canonical and ident not in seen:
                    seen.add(ident)
                    relations.append(Relation(source=name, predicate=ALIAS_PREDICATE, target=alias.name,
                                              evidence=sentence.strip(), doc_id=doc_id, chunk_id=chunk_id,
                                              source_file=source_file))
    topic: Mention | None = None  # the entity the text is about: the subject that opened a recent sentence
    topic_age = 0
    led: dict[str, str] = {}  # person key -> the group they lead (this chunk's leads facts): "her team"
    for sentence, raw in per_sentence:
        mentions = _apply_aliases(sentence, raw, canonical)
        group = group_reference(sentence, topic, led)  # "… belongs to this team": the group the text is about
        pronoun = _PRONOUN_SUBJECT_RE.match(sentence)
        topic_age += 1
        if topic_age > TOPIC_SPAN:
            topic = None
        if pronoun and topic is not None and not any(m.start < pronoun.end() for m in mentions):
            # "ParcelHub is … . It was built by the Web Platform Team": the pronoun stands for the topic
            particle = "는" if _has_hangul(pronoun.group(0)) else ""
            mentions = [Mention(pronoun.start("p"), pronoun.end("p"), topic.name, topic.type, particle)] + mentions
        elif topic is not None and _zero_subject(sentence, mentions, topic):
            # Korean drops a subject the text is about: "솔마루물산은 … . 1998년 A가 설립했으며" (A founded 솔마루물산),
            # "- 가람시립도서관: … 관장은 윤하나다" (the head of 가람시립도서관)
            particle = "의" if _KO_TITLE_TOPIC_RE.match(sentence) else "는"
            mentions = [Mention(0, 0, topic.name, topic.type, particle)] + mentions
        else:
            body = len(sentence) - len(sentence.lstrip(" \t#>*+•·-|"))
            opener = next((m for m in mentions if m.start <= body + 2), None)
            if opener is not None:
                topic, topic_age = opener, 0
        if group is not None and not any(m.start < group.end and group.start < m.end for m in mentions):
            mentions = sorted(mentions + [group], key=lambda m: m.start)
        distinct: list[Mention] = []
        for m in mentions:
            key = entity_key(m.name)
            if key not in entities:
                entities[key] = Entity(name=m.name, type=m.type)
            if all(entity_key(d.name) != key for d in distinct):
                distinct.append(m)
        if len(distinct) < 2:
            continue
        found = _relation_for(sentence, distinct)
        if found:
            triples = [(found[0].name, found[1], found[2].name)]
            # a name's alias in parentheses ("Sanha Optics (산하옵틱스)", "Kim Meilan (金美兰)") does not make the
            # sentence Korean or Chinese
            plain = _PARENTHESISED.sub("", sentence)
            if not _has_hangul(plain) and re.search(r"[\u4e00-\u9fff]", plain):
                triples += [(x.name, p, y.name) for x, p, y in _chinese_relations(sentence, distinct)[1:]]
            elif not _has_hangul(plain):
                # "It was developed by B, a software company based in C": a second clause about the last name
                rest = [m for m in distinct if m.start >= max(found[0].start, found[2].start)]
                more = _english_relation(sentence, rest) if len(rest) >= 2 else None
                if more and more[1] != found[1] and entity_key(more[0].name) != entity_key(more[2].name):
                    triples.append((more[0].name, more[1], more[2].name))
            for role_index in (0, 2):  # "A과 B는 C가 만든 모델이다": A shares B's role
                partner = found[role_index]
                for m in distinct:
                    between = [x for x in distinct if m.end <= x.start and x.end <= partner.start and x.particle]
                    if m.particle in ("와", "과") and m.end <= partner.start and m is not found[2 - role_index] \
                            and not between and sentence[m.end + 1 : partner.start].strip().count(" ") <= 3:
                        triple = [found[0].name, found[1], found[2].name]
                        triple[role_index] = m.name
                        triples.append((triple[0], triple[1], triple[2]))
        elif _associated_pair(sentence, distinct):
            left, right = _associated_pair(sentence, distinct)
            triples = [(left.name, "related_to", right.name)]
        else:  # names that merely occur in one sentence ("A and B were both mentioned …") are not a relation
            continue
        for src, pred, tgt in triples:
            ident = (entity_key(src), pred, entity_key(tgt))
            if ident in seen:
                continue
            seen.add(ident)
            relations.append(Relation(source=src, predicate=pred, target=tgt, evidence=sentence.strip(),
                                      doc_id=doc_id, chunk_id=chunk_id, source_file=source_file))
            if pred == "leads":
                led[entity_key(src)] = tgt
    for src, pred, tgt, row in table_relations(text):  # "| Team | Lead |" states the relation in its header
        ident = (entity_key(src), pred, entity_key(tgt))
        if ident in seen or ident[0] == ident[2]:
            continue
        seen.add(ident)
        for name in (src, tgt):
            entities.setdefault(entity_key(name), Entity(name=name, type=_entity_type(name)))
        relations.append(Relation(source=src, predicate=pred, target=tgt, evidence=row, doc_id=doc_id,
                                  chunk_id=chunk_id, source_file=source_file))
    _type_from_relations(entities, relations)
    return Extraction(entities=list(entities.values()), relations=relations)
