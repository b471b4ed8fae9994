"""Issue 8: relations on text the rules were not tuned on — the contact and signature lines of a Chinese agreement.

A Chinese agreement summary ends with each party's people, one line per party: "<organisation>：<title> <person>；
<title> <person>", and starts with a byline "整理：<organisation> <title> <person>". The head of the organisation
(董事长, 总经理 …) leads it; everyone else on its line belongs to it. The person is the name after the title and a
space, whatever the family name. A role before the colon ("负责人：", "甲方：") is no organisation. The documents are
written for this test.
"""
from __future__ import annotations

import pytest

from rag.extract import extract
from rag.graphstore.base import entity_key
from tests.support.relations import extracted_triples

SUMMARY = (
    "“茗川·多园”绿茶供货协议要点（内部摘要）\n"
    "整理：Dawon Tea 中国区经理 宁可心 ｜ 2026年3月\n\n"
    "第一条 签约概况\n"
    "2026年2月10日，杭州茗川茶业有限公司（以下简称“茗川”）与韩国宝城的茶园 Dawon Tea（다원티）在杭州签署绿茶供货协议。\n\n"
    "第二条 双方联系人\n"
    "茗川：总经理 闻一舟；质量总监 符晓岚\n")


def test_a_contact_line_gives_the_head_and_the_staff_of_its_organisation():
    found = extracted_triples(SUMMARY)
    assert (entity_key("闻一舟"), "leads", entity_key("茗川")) in found, found
    assert (entity_key("符晓岚"), "belongs_to", entity_key("茗川")) in found, found
    assert (entity_key("符晓岚"), "leads", entity_key("茗川")) not in found  # a director, not the head


def test_a_byline_gives_the_organisation_of_its_author():
    found = extracted_triples(SUMMARY)
    assert (entity_key("宁可心"), "belongs_to", entity_key("Dawon Tea")) in found, found


@pytest.mark.parametrize("line, person", [("负责人：总经理 闻一舟", "闻一舟"), ("甲方：董事长 符晓岚", "符晓岚")])
def test_a_role_before_the_colon_is_no_organisation(line, person):
    found = extracted_triples(line)
    assert not any(s == entity_key(person) for s, _, _ in found), found
    assert not any(entity_key(e.name) in (entity_key("负责人"), entity_key("甲方"))
                   for e in extract(line, "d", "d#0").entities)


def test_a_line_of_labels_without_titles_gives_no_relation():
    assert extracted_triples("时间：下午三点；地点：第二会议室；主持：品质部") == set()
