"""The head and the founders of the organisation a page is about, from its list of leaders: a people page titled
"# Mulangae Brewing — Who's Who" lists "- **Minyul Kwak (곽민율)** — founder and CEO. …": the line names no
organisation, the page's title does. The title is in the document's first chunk only, so this is read over the whole
document at ingest (``page_leader_relations``), not per chunk. Structure and English role words (language), not tuned
on a corpus."""
from __future__ import annotations

import re
from typing import Mapping, Sequence

from rag.extract.kinds import _PERSON_RE
from rag.graphstore.base import entity_key
from rag.types import Chunk, Entity, Relation

_TITLE = re.compile(r"^\s*#\s+(.+?)\s*#*\s*$", re.M)
# the organisation a title names: its text before a dash or a colon ("Mulangae Brewing — Who's Who")
_TITLE_PARTS = re.compile(r"\s+[—–-]\s+|\s*[:：|]\s*")
# "- **Name (alias)** — role, role and role." (bold name, a dash or a colon, the roles up to the sentence's end)
_LEADER_ITEM = re.compile(r"^\s*[-*•]\s*\*\*(?P<name>[^*(（]+?)\s*(?:[(（][^)）]*[)）])?\s*\*\*\s*[—–:-]\s*"
                          r"(?P<roles>[^.;:!?\n]{1,80})", re.M)
_FOUNDER = re.compile(r"\b(?:co-?)?founder\b", re.I)
_HEAD = re.compile(r"\b(?:CEO|chief executive(?: officer)?|managing director|president|executive director)\b", re.I)
_ROLE_OF = re.compile(r"\b(?:of|at|for|in)\b", re.I)  # "CEO of Harbour Ltd": the line names the organisation itself


def page_organisation(text: str) -> str:
    """The name the page's first level-1 heading starts with ("" when it has none)."""
    m = _TITLE.search(text)
    return _TITLE_PARTS.split(m.group(1), maxsplit=1)[0].strip(" *_") if m else ""


def leader_relations(text: str, organisation: str) -> list[tuple[str, str, str, str]]:
    """(source, predicate, target, evidence line): ``organisation`` founded_by each founder listed, each chief
    executive leads it. A role line that names where the role is held ("CEO of …") is left to the sentence rules."""
    out: list[tuple[str, str, str, str]] = []
    if not organisation:
        return out
    for m in _LEADER_ITEM.finditer(text):
        name, roles = m.group("name").strip(), m.group("roles")
        if not _PERSON_RE.match(name) or _ROLE_OF.search(roles):
            continue
        line = text[m.start():text.find("\n", m.end()) if "\n" in text[m.end():] else len(text)].strip()
        if _FOUNDER.search(roles):
            out.append((organisation, "founded_by", name, line))
        if _HEAD.search(roles):
            out.append((name, "leads", organisation, line))
    return out


def page_leader_relations(chunks: Sequence[Chunk], entities: Mapping[str, Entity], source_file: str) -> list[Relation]:
    """The ``leader_relations`` of a document's chunks (in order) for the organisation its title names, when that
    name is one of the document's entities (``entities``: entity key -> entity, as extracted from its chunks); each
    relation's chunk is the one its line is in."""
    found = entities.get(entity_key(page_organisation(chunks[0].text))) if chunks else None
    out: list[Relation] = []
    seen: set[tuple[str, str, str]] = set()
    for chunk in chunks if found is not None else ():
        for src, pred, tgt, line in leader_relations(chunk.text, found.name):
            ident = (entity_key(src), pred, entity_key(tgt))
            if ident not in seen and entity_key(src) != entity_key(tgt):
                seen.add(ident)
                out.append(Relation(source=src, predicate=pred, target=tgt, evidence=line, doc_id=chunk.doc_id,
                                    chunk_id=chunk.chunk_id, source_file=source_file))
    return out
