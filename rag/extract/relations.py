"""The relation of a sentence: the rules of its language (``_relation_for``), or ``related_to`` only where the
sentence states an association between two names (``_associated_pair``)."""
from __future__ import annotations

import re

from rag.extract.mention import Mention
from rag.extract.names import _has_hangul
from rag.extract.relations_en import _english_relation
from rag.extract.relations_ko import _korean_relation
from rag.extract.relations_zh import _chinese_relation
from rag.graphstore.base import entity_key


def _relation_for(sentence: str, mentions: list[Mention]) -> tuple[Mention, str, Mention] | None:
    if not _has_hangul(sentence) and re.search(r"[\u4e00-\u9fff]", sentence):
        found = _chinese_relation(sentence, mentions) or _english_relation(sentence, mentions)
    elif _has_hangul(sentence):
        found = _korean_relation(sentence, mentions)
        if found is None:
            found = _english_relation(sentence, mentions)
    else:
        found = _english_relation(sentence, mentions)
    if found and entity_key(found[0].name) != entity_key(found[2].name):
        return found
    return None


# Words that state an association without a more specific relation: only then does a sentence without a trigger give
# ``related_to`` (precision: co-occurrence alone is no relation). Language, not tuned on a corpus.
_ASSOCIATION_RE = re.compile(
    r"\brelated to\b|\bassociated with\b|\bpartner(?:s|ed|ing)? with\b|\bin partnership with\b|"
    r"\bcollaborat\w* with\b|\bworks? (?:closely )?with\b|\bjointly\b|\btogether with\b|"
    r"협력|제휴|협업|공동으로|함께 (?:개발|운영|만들|연구)|관련이 있|合作|相关|联合|共同")


def _associated_pair(sentence: str, mentions: list[Mention]) -> tuple[Mention, Mention] | None:
    """The two names an association phrase joins: the name before it and the name after it ("A partnered with B",
    "A는 B와 협력한다": in Korean the phrase follows both). "A and B sit on a group, together with others" joins no
    two of the names."""
    for m in _ASSOCIATION_RE.finditer(sentence):
        before = [x for x in mentions if x.end <= m.start()]
        after = [x for x in mentions if x.start >= m.end()]
        if before and after:
            return before[-1], after[0]
        if _has_hangul(m.group(0)) and len(before) >= 2:
            return before[0], before[1]
    return None
