"""English relations: a ``PATTERNS`` trigger between two names; word order says which is the subject."""
from __future__ import annotations

import re

from rag.extract.mention import Mention
from rag.extract.patterns import PATTERNS


# language: the romanised Korean administrative parts of an address below a city, and English street words
_CITY_PART = re.compile(r"-(?:gu|dong|ro|gil|eup|myeon|ri|gun)$|\b(?:District|Street|Road|Avenue|Ward)$")


def _english_relation(sentence: str, mentions: list[Mention]) -> tuple[Mention, str, Mention] | None:
    for pattern in PATTERNS:
        for regex, reverse in [(r, False) for r in pattern.english] + [(r, True) for r in pattern.english_reversed]:
            for m in re.finditer(regex, sentence, flags=re.IGNORECASE):
                # within the trigger's clause: "A is responsible for the printers; the B scanners …" links no B
                left = [x for x in mentions if x.end <= m.start() and ";" not in sentence[x.end:m.start()]]
                # … and not across a comma after the trigger ("Dahye Lim, who runs the trials, is a member of this
                # group": "runs" has no named object)
                right = [x for x in mentions if x.start >= m.end() and not re.search(r"[;,]", sentence[m.end():x.start])]
                if not left or not right:
                    continue
                subj, obj = left[0], right[0]
                # "who leads Tamna's Systems Unit": the possessor names whose unit it is, the unit is the object
                if len(right) > 1 and re.fullmatch(r"['’]s\s+", sentence[obj.end:right[1].start]):
                    obj = right[1]
                if pattern.predicate == "located_in" and not reverse:
                    # an address runs from the street to the city ("in Yeonnam-dong, Mapo-gu, Seoul"): from a part
                    # of a city (its -dong, -gu, street …) to the place after it ("Busan, Harbour Ltd supplies …" and
                    # "Seoul, South Korea" stay at Busan, Seoul)
                    for nxt in [x for x in mentions if x.start >= obj.end]:
                        if not (re.fullmatch(r",\s*", sentence[obj.end:nxt.start]) and _CITY_PART.search(obj.name)):
                            break
                        obj = nxt
                if reverse:
                    subj, obj = obj, subj
                return subj, pattern.predicate, obj
    return None
