"""Subjects a sentence does not name: a pronoun ("It", "This system", "이 시스템은", "该系统") or a Korean sentence
with no subject of its own stands for the topic, the name that opened one of the last ``TOPIC_SPAN`` sentences."""
from __future__ import annotations

import re

from rag.extract.mention import Mention
from rag.extract.names import _has_hangul
from rag.extract.patterns import PATTERNS
from rag.graphstore.base import entity_key


# language: a sentence that opens with a pronoun for the thing just described ("It", "This system", "이 시스템은",
# "该系统", "它"), or with its possessive ("Its crash panel uses B"): what a part of the thing does, the thing does.
# Not Korean "이 시스템의 …": the name after it is the subject there ("이 시스템의 전신인 OldDock은 …")
_PRONOUN_SUBJECT_RE = re.compile(
    r"^[\s#>*+•·\-|]*(?P<p>(?:It|This|The)\s+(?:system|tool|service|app|application|platform|product|database|"
    r"program|programme|software)\b|It\b(?!'s\s)|Its\b|"
    r"이\s*(?:시스템|도구|서비스|앱|플랫폼|제품|데이터베이스|프로그램)(?=은|는|이|가)|"
    r"(?:该|这个|这一)(?:系统|工具|服务|应用|平台|产品|数据库|程序)|它)")
# How many sentences a topic (the name that opened a sentence) stands for a dropped or pronoun subject. Language
# habit, not tuned: a short paragraph.
TOPIC_SPAN = 3
# "관장은 윤하나다", "대표이사는 오세라이며": a head-of-unit title as the topic (its owner is left out)
_KO_TITLE_TOPIC_RE = re.compile(r"^[\s\-*•·]*(?:팀장|관장|대표이사|이사장|원장|본부장|실장|센터장|단장|책임자|리더)(?:은|는)\s")


def _zero_subject(sentence: str, mentions: list[Mention], topic: Mention) -> bool:
    """A Korean sentence with a relation trigger but no topic or subject of its own that names the topic: its subject
    was dropped and is the topic of the text."""
    if not _has_hangul(sentence) or any(entity_key(m.name) == entity_key(topic.name) for m in mentions):
        return False
    if any(m.particle in ("은", "는", "도", "께서") for m in mentions) or not mentions:
        return False
    if _KO_TITLE_TOPIC_RE.match(sentence):
        return True
    made = [p for p in PATTERNS if p.ko_subject_role in ("made",)]
    return any(t in sentence for p in made for t in p.korean)


# language: a group the sentence does not name — "… belongs to this team", "a member of her team", "이 팀 소속",
# "该团队": "this" stands for the group the text is about (the topic), "her / his / their" for the group the topic
# person leads
GROUP_WORDS = r"(?:team|group|unit|office|department|lab|laboratory|division|section|centre|center)"
_THIS_GROUP_RE = re.compile(rf"\b(?:this|that|the same)\s+{GROUP_WORDS}\b|이\s*(?:팀|그룹|부서|조직)(?=\s|에|의|은|는|이|가|소속)|"
                            r"(?:该|这个|本)(?:团队|小组|组|部门)", re.I)
_THEIR_GROUP_RE = re.compile(rf"\b(?:her|his|their)\s+{GROUP_WORDS}\b", re.I)
_GROUP_NAME_RE = re.compile(rf"\b{GROUP_WORDS}$|(?:팀|그룹|센터|연구소|부서)$|(?:团队|小组|组|部|中心)$", re.I)


def group_reference(sentence: str, topic: Mention | None, led: dict[str, str]) -> Mention | None:
    """The group a sentence refers to without naming it, as a mention at the words that refer to it: "this team"
    → the topic when the topic is a group; "her team" → the group the topic person leads (``led``: person key →
    group name, from this chunk's ``leads`` facts). None when the sentence refers to none or it cannot be resolved."""
    if topic is None:
        return None
    m = _THIS_GROUP_RE.search(sentence)
    if m and _GROUP_NAME_RE.search(topic.name):
        return Mention(m.start(), m.end(), topic.name, topic.type, "")
    m = _THEIR_GROUP_RE.search(sentence)
    if m and entity_key(topic.name) in led:
        return Mention(m.start(), m.end(), led[entity_key(topic.name)], "org", "")
    return None
