"""Entity types: from a name's shape and last word (``_entity_type``), and from the role an entity plays in a
relation (``_type_from_relations``)."""
from __future__ import annotations

import re

from rag.graphstore.base import entity_key
from rag.types import Entity, Relation


_ORG_SUFFIXES_EN = ("inc", "inc.", "corp", "corp.", "corporation", "company", "labs", "lab", "ltd", "llc",
                    "university", "institute", "foundation", "group", "bank", "ai", "research", "technologies",
                    "team", "department", "division", "office", "agency", "council", "committee", "center",
                    "centre", "college", "school", "hospital", "ministry")

_ORG_SUFFIXES_KO = ("대학교", "대학", "연구소", "연구원", "재단", "그룹", "은행", "전자", "병원", "센터", "회사",
                    "랩", "랩스", "본부", "학회", "협회", "공사", "테크", "소프트", "시스템즈", "코리아", "캠퍼스")


def _entity_type(name: str) -> str:
    lower = name.lower()
    if re.search(r"\d", name) and re.search(r"[-_.]", name) or re.search(r"[A-Za-z].*\d|\d.*[A-Za-z]", name):
        return "model"
    last = lower.split()[-1] if lower.split() else lower
    if last in _ORG_SUFFIXES_EN or any(name.endswith(s) for s in _ORG_SUFFIXES_KO):
        return "org"
    return "concept"


# the role an entity plays in a relation says what it is: (predicate, side) -> type
_ROLE_TYPES = {("leads", 0): "person", ("founded_by", 2): "person", ("located_in", 2): "place",
               ("belongs_to", 2): "org", ("owns", 0): "org", ("acquired", 0): "org", ("acquired", 2): "org",
               ("developed_by", 0): "product", ("owns", 2): "product", ("leads", 2): "org"}
_PERSON_RE = re.compile(r"^[A-Z][a-z]+(?:[- ][A-Z][a-z]+){1,2}$")


def _type_from_relations(entities: dict[str, Entity], relations: list[Relation]) -> None:
    """Give "concept" entities a type from their role: who leads is a person, where is a place, ..."""
    for r in relations:
        for side, name in ((0, r.source), (2, r.target)):
            entity = entities.get(entity_key(name))
            if entity is None or entity.type != "concept":
                continue
            role = _ROLE_TYPES.get((r.predicate, side))
            if role is None and r.predicate in ("belongs_to", "developed_by") and _PERSON_RE.match(name) \
                    and not name.split()[-1].lower() in _ORG_SUFFIXES_EN:
                role = "person"  # "Minji Park belongs to ...", "... was developed by Stephen Robertson"
            if role:
                entity.type = role
