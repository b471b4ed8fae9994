"""English relations: a ``PATTERNS`` trigger between two names; word order says which is the subject."""
from __future__ import annotations

import re

from rag.extract.mention import Mention
from rag.extract.patterns import PATTERNS


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
                    # an address runs from the street to the city ("in Yeonnam-dong, Mapo-gu, Seoul"): the last
                    # place of the comma-separated run is where the subject is
                    for nxt in [x for x in mentions if x.start >= obj.end]:
                        if not re.fullmatch(r",\s*", sentence[obj.end:nxt.start]):
                            break
                        obj = nxt
                if reverse:
                    subj, obj = obj, subj
                return subj, pattern.predicate, obj
    return None
