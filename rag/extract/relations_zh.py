"""Chinese relation frames: A由B开发 / 负责, B开发的A, A位于B, 是B下属的, B负责人A, B的A (a person), A使用B."""
from __future__ import annotations

import re

from rag.extract.kinds import _PERSON_RE
from rag.extract.mention import Mention
from rag.graphstore.base import entity_key


# Chinese relation frames (language): (regex between/around the two names, predicate, which side is the subject)
_ZH_DEVELOP = r"(?:开发|研发|建立|建造|打造|制作|设计|推出|创建|搭建)"
_ZH_MANAGE = r"(?:负责|领导|管理|带领|主管|运营|维护)"
# the titles of a contact or signature line ("海岬：董事长 鲁振东；采购总监 邵一鸣", "整理：雾江精酿 中国市场经理 唐可欣"):
# a head's title, and any title (a qualifier such as 采购 / 中国市场 may stand before it)
_ZH_HEAD = r"(?:董事长|总经理|理事长|社长|总裁|负责人|法定代表人)"
_ZH_TITLE = r"[\u4e00-\u9fff]{0,6}?(?:董事长|总经理|理事长|社长|总裁|负责人|法定代表人|经理|总监|主任|主管|部长|组长|代表)"


def _chinese_relation(sentence: str, mentions: list[Mention]) -> tuple[Mention, str, Mention] | None:
    found = _chinese_relations(sentence, mentions)
    return found[0] if found else None


def _chinese_relations(sentence: str, mentions: list[Mention]) -> list[tuple[Mention, str, Mention]]:
    """Every frame of ``_chinese_frame`` in the sentence, in order ("A位于B，是C下属的…" states two)."""
    out = []
    for a, b in zip(mentions, mentions[1:]):
        found = _chinese_frame(sentence, mentions, a, b)
        if found and entity_key(found[0].name) != entity_key(found[2].name):
            out.append(found)
    return out


def _chinese_frame(sentence: str, mentions: list[Mention], a: Mention, b: Mention) -> tuple[Mention, str, Mention] | None:
    """"A由B开发" (A developed_by B), "A由B负责" (B leads A when B is a person, else B owns A), "B开发的A",
    "A位于B", "A是B下属的…" / "A隶属于B" (part_of), "B负责人A" / "B的负责人是A" (A leads B), "B的A（person）"
    (A belongs_to B), "A使用/采用B" (A uses B), a contact line "B：董事长 A；采购总监 C" (A leads B, C belongs_to B)
    and a byline "整理：B 中国市场经理 A" (A belongs_to B). Only names next to the frame's words count."""
    def gap(a: Mention, b: Mention) -> str:
        return sentence[a.end:b.start]

    def is_person(m: Mention) -> bool:
        return m.type == "person" or _PERSON_RE.match(m.name) is not None

    between = gap(a, b)
    after = sentence[b.end:b.end + 8]
    if re.fullmatch(r"\s*由\s*[\u4e00-\u9fff]{0,4}?", between):  # "由站长郑浩然负责": a title may stand between
        if re.match(rf"\s*(?:[\u4e00-\u9fff]{{0,3}}?){_ZH_DEVELOP}", after) and not re.match(r"\s*负责", after):
            return a, "developed_by", b
        if re.match(rf"\s*{_ZH_MANAGE}", after):
            return (b, "leads", a) if is_person(b) else (b, "owns", a)
    if re.fullmatch(rf"\s*(?:{_ZH_DEVELOP}|{_ZH_MANAGE})了?\s*", between) and re.match(r"\s*的?", after):
        if re.fullmatch(rf"\s*{_ZH_DEVELOP}了?\s*", between):
            return b, "developed_by", a  # "A开发了B"
        return (a, "leads", b) if is_person(a) else (a, "owns", b)
    if re.fullmatch(rf"\s*{_ZH_DEVELOP}的\s*", between):
        return b, "developed_by", a  # "B开发的A"
    if re.fullmatch(rf"\s*{_ZH_MANAGE}的\s*", between):
        return a, "owns", b
    if re.fullmatch(r"\s*(?:总部|总公司)?\s*位于\s*(?:[\u4e00-\u9fff]{1,3}?)?", between) and "位于" in between:
        return a, "located_in", b
    if re.fullmatch(r"[^，。；]*?是\s*", between) and re.match(r"\s*(?:下属|旗下|所属)", after):
        return a, "part_of", b
    if re.fullmatch(r"\s*[，,]\s*(?:也|还)?是\s*", between) and re.match(r"\s*(?:下属|旗下|所属)", after) \
            and mentions[0] is not b:
        return mentions[0], "part_of", b  # "A位于X，是B下属的…": the sentence's subject goes on
    if re.fullmatch(r"\s*(?:隶属于|隶属|属于)\s*", between):
        return (a, "belongs_to", b) if is_person(a) else (a, "part_of", b)
    if re.fullmatch(r"\s*(?:的)?(?:负责人|主任|组长|部长|馆长|院长|团长|所长|队长|总经理|董事长|理事长)(?:是|为)?\s*",
                    between) and is_person(b):
        return b, "leads", a
    if is_person(b) and re.fullmatch(rf"\s*[：:]\s*{_ZH_TITLE}\s*", between) and a is mentions[0]:
        # "海岬：董事长 鲁振东": a contact line names the organisation, then each person with their title
        return (b, "leads", a) if re.fullmatch(rf"\s*[：:]\s*{_ZH_HEAD}\s*", between) else (b, "belongs_to", a)
    if is_person(b) and re.fullmatch(rf"\s*[；;]\s*{_ZH_TITLE}\s*", between) and mentions[0] is not a \
            and re.match(r"\s*[：:]", sentence[mentions[0].end:]):
        return b, "belongs_to", mentions[0]  # "…；采购总监 邵一鸣": the next person of the line's organisation
    if is_person(b) and a.type != "person" and re.fullmatch(rf"\s+{_ZH_TITLE}\s+", between):
        return b, "belongs_to", a  # "整理：雾江精酿 中国市场经理 唐可欣": a byline
    if is_person(b) and a.type == "org" and re.fullmatch(r"\s*的\s*", between):
        return b, "belongs_to", a  # "票务组的吴兰"
    if re.fullmatch(r"\s*(?:使用|采用|用|依靠|基于)了?\s*", between):
        return a, "uses", b
    return None
