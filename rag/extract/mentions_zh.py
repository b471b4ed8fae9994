"""Chinese names (language, not tuned on a corpus): "郑浩然（Haoran Zheng）" (a Han name before a parenthesised
romanisation; a person's length follows the romanised given name), unit names ending in 组 / 室 / 馆 / 团队 …, places
ending in 市 / 省 / 县, and a family name after a title ("主任何雨桐")."""
from __future__ import annotations

import re

from rag.extract.kinds import _ORG_SUFFIXES_EN, _entity_type
from rag.extract.mention import Mention
from rag.extract.names import _has_hangul


# Han characters that end a name when reading back from its last character: function words, and determiners
# ("该组", "每个小组" name nothing)
_ZH_BOUNDARY = set("是的在由和与及为了将把被向对从于位使用等或并也都就让给每各该本这那此其个已")
_ZH_ORG_SUFFIXES = ("团队", "小组", "委员会", "基金会", "研究所", "研究院", "财团", "集团", "公司", "中心", "大学",
                    "学院", "银行", "医院", "协会", "图书馆", "博物馆", "组", "部", "室", "馆", "局", "处", "科", "团")
_ZH_GENERIC = frozenset("图书馆 博物馆 委员会 研究所 研究院 办公室 公司 中心 大学 学院 银行 医院 协会 团队 小组 "
                        "代表团 参观团 旅行团 工作组 这个组".split())
_ZH_TITLES = ("负责人", "主任", "经理", "组长", "部长", "队长", "船长", "馆长", "院长", "主管", "总监",
              "教授", "博士", "团长", "所长", "科长", "处长", "局长", "工程师", "研究员", "董事长", "总经理", "理事长",
              "总裁")
# common one-character family names of Chinese and of Korean names written in Han characters
_ZH_SURNAMES = set("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕"
                   "丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严"
                   "覃武戴莫孔向汤朴申权安柳洪全文孙裴南河成车具禹辛闵元奉慎玄卞鲁都")
# words that may follow a unit's name directly (a verb or a title), so its suffix ends the name
_ZH_FOLLOWERS = ("方面", "下属", "旗下", "隶属", "属于", "位于", "开发", "研发", "建立", "建造", "打造", "制作", "设计",
                 "推出", "创建", "搭建", "负责", "领导", "管理", "带领", "主管", "运营", "维护", "使用", "采用", "成立",
                 "和", "与", "及", "、") + _ZH_TITLES
# language: last words of English names of places and things, not people ("Bailu Observatory"; not "park", a family
# name); and the Han endings
# of such names
_PLACE_WORDS_EN = frozenset("""observatory museum library hall station system systems app platform branch studio
    gallery theatre theater port terminal airport bridge tower garden church temple school academy island city county
    province street road market""".split())
_ZH_PLACE_ENDINGS = ("台", "站", "厅", "园", "楼", "市", "省", "县", "岛", "港", "桥", "塔", "寺", "馆", "院", "室", "组",
                     "部", "团", "会", "局", "处", "所", "司", "系统", "平台", "中心")
_ZH_COUNTRIES = ("韩国", "中国", "日本", "美国", "英国", "法国", "德国", "越南", "泰国", "新加坡")
_HAN = r"\u4e00-\u9fff"
_ZH_ALIAS_RE = re.compile(rf"([{_HAN}]+)\s*[（(]\s*([A-Za-z][A-Za-z .'\-&]*?)\s*[)）]")


# a contact or signature line: "<organisation>：<title> <person>" ("海岬：董事长 鲁振东；采购总监 邵一鸣"), or a byline
# "<role>：<organisation> <title> <person>" ("整理：雾江精酿 中国市场经理 唐可欣", "整理：Studio Neoul 中国事业经理 刘晨")
_TITLE_ALT = "|".join(_ZH_TITLES)
_ORG_OR_LATIN = rf"[{_HAN}]{{2,12}}|[A-Za-z][\w.&'-]*(?: [A-Za-z][\w.&'-]*){{0,3}}"
_PERSON_AFTER_TITLE = rf"[{_HAN}]{{0,6}}?(?:{_TITLE_ALT})[ \u3000]?[{_HAN}]{{2,3}}"
_CONTACT_HEAD = re.compile(rf"^\s*(?P<org>{_ORG_OR_LATIN})\s*[：:]\s*{_PERSON_AFTER_TITLE}")
_ROLE_ENDINGS = ("人", "方")  # "负责人：总经理 …", "甲方：董事长 …": a role, not the organisation
_CONTACT_PERSON = re.compile(rf"(?:{_TITLE_ALT})[ \u3000]([{_HAN}]{{2,3}})(?=$|[；;（(\s｜|，,。])")
_BYLINE = re.compile(rf"^\s*[{_HAN}]{{2,4}}\s*[：:]\s*(?P<org>{_ORG_OR_LATIN})[ \u3000]+{_PERSON_AFTER_TITLE}")


def _zh_back(sentence: str, end: int, min_start: int = 0) -> int:
    """Where a Han name ending at ``end`` starts: read back to a boundary character, a non-Han character or a title."""
    start = end
    while start > min_start and re.match(rf"[{_HAN}]", sentence[start - 1]) and sentence[start - 1] not in _ZH_BOUNDARY:
        start -= 1
        if any(sentence[:start].endswith(t) for t in _ZH_TITLES):
            break
    return start


def _given_syllables(latin: str) -> int:
    """Syllables of a romanised given name ("Minseo" 2, "Lan" 1, "Ha-eun" 2): vowel groups."""
    given = latin.split()[0]
    return max(1, len(re.findall(r"[aeiou]+", given.lower())))  # pinyin y / w begin a syllable


def _chinese_mentions(sentence: str) -> list[Mention]:
    if not re.search(rf"[{_HAN}]", sentence) or _has_hangul(sentence):
        return []
    found: list[Mention] = []
    for m in _ZH_ALIAS_RE.finditer(sentence):  # "郑浩然（Haoran Zheng）", "松岳民俗博物馆（Songak Folk Museum）"
        han_end, latin = m.end(1), m.group(2).strip()
        words = latin.split()
        person = 2 <= len(words) <= 3 and words[-1].casefold() not in _ORG_SUFFIXES_EN \
            and words[-1].casefold() not in _PLACE_WORDS_EN and not m.group(1).endswith(_ZH_PLACE_ENDINGS) \
            and all(re.fullmatch(r"[A-Z][a-z]+(?:-[a-z]+)?", w) for w in words)
        if person:
            start = max(m.start(1), han_end - 1 - _given_syllables(latin))
            kind = "person"
        else:
            start = _zh_back(sentence, han_end, m.start(1))
            kind = _entity_type(latin)
        if han_end - start >= 2:
            found.append(Mention(start, han_end, sentence[start:han_end], kind))
    for suffix in _ZH_ORG_SUFFIXES:  # "设备检修组", "档案修复室", "杭州图书馆"
        for m in re.finditer(re.escape(suffix), sentence):
            end = m.end()
            if end < len(sentence) and re.match(rf"[{_HAN}]", sentence[end]) and not (
                    sentence[end] in _ZH_BOUNDARY or any(sentence[end:].startswith(w) for w in _ZH_FOLLOWERS)):
                continue  # the suffix is inside a longer word
            start = _zh_back(sentence, m.start())
            if suffix == "部" and sentence[start:m.start()].endswith("总"):
                # "禾麦总部位于…": the headquarters (总部) of the unit named before it, not a unit of its own
                end = m.start() - 1
                if end - start >= 2 and sentence[start:end] not in _ZH_GENERIC:  # not "该公司总部"
                    found.append(Mention(start, end, sentence[start:end], "org"))
                continue
            name = sentence[start:end]
            if m.start() - start >= 2 and name not in _ZH_GENERIC:
                found.append(Mention(start, end, name, "org"))
    for m in re.finditer(r"[市省县区]", sentence):  # "原州市", "韩国原州市" (the country is not part of the name), "儒城区"
        start = _zh_back(sentence, m.start())
        start += len(next((c for c in _ZH_COUNTRIES if sentence.startswith(c, start)), ""))
        if m.group(0) == "区":
            # a district: after its city in the name ("上海市" + "徐汇区") or where a place is said to be ("位于苏州工业园区",
            # "韩国大田儒城区"); not an area of a building or a site ("请在吸烟区吸烟", "候车区"), nor 社区 / 地区
            city = max(sentence.rfind(c, start, m.start()) for c in "市省")
            placed = sentence[:start].endswith(("位于", "地处", *_ZH_COUNTRIES))
            if city < 0 and not placed:
                continue
            start = city + 1 if city >= 0 else start
            if m.start() - start < 2:
                continue
        if m.start() - start >= 1 and m.end() - start <= 6:
            found.append(Mention(start, m.end(), sentence[start:m.end()], "place"))
    contact = _CONTACT_HEAD.match(sentence) or _BYLINE.match(sentence)
    if contact and not contact.group("org").endswith(_ROLE_ENDINGS):
        # the organisation a contact line or a byline names ("海岬：董事长 鲁振东", "整理：雾江精酿 中国市场经理 唐可欣")
        found.append(Mention(contact.start("org"), contact.end("org"), contact.group("org"), "org"))
        for m in _CONTACT_PERSON.finditer(sentence):  # in such a line a title and a space come before each person
            found.append(Mention(m.start(1), m.end(1), m.group(1), "person"))
    for title in _ZH_TITLES:  # "主任何雨桐", "负责人金素妍", "董事长 鲁振东" (a contact line)
        for m in re.finditer(re.escape(title) + rf"[ \u3000]?([{_HAN}]{{2,3}})", sentence):
            name = m.group(1)
            if name[0] not in _ZH_SURNAMES:
                continue
            if len(name) == 3 and (name[2] in _ZH_BOUNDARY or name[2] in "负任"):
                name = name[:2]
            found.append(Mention(m.start(1), m.start(1) + len(name), name, "person"))
    return found
