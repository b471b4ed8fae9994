"""Offline, rule-based entity and relation extraction (Korean, English, Chinese). Precision over recall.

Entities, per sentence:
- Latin proper-noun-like terms: capitalised word sequences ("Apex Labs", "Bank of Korea"), acronyms
  ("RAG", "NVIDIA") and model names with digits or dashes ("bge-reranker-v2-m3", "GPT-4o");
- Korean proper nouns: runs of kiwipiepy ``NNP`` tokens ("에이펙스 랩스", "노바-7"), with an attached
  common noun or an organisation suffix ("서울 대학교");
- quoted terms ("…", “…”, 「…」, 『…』);
- Chinese names: "郑浩然（Haoran Zheng）" (a Han name before a parenthesised romanisation; a person's length follows
  the romanised given name), unit names ending in 组 / 室 / 馆 / 团队 …, places ending in 市 / 省 / 县, and a family
  name after a title ("主任何雨桐");
- not: candidates made only of generic words (``is_generic``: "Team", "Wednesday", "English", "Correct", "팀과 제품");
  "Employees of Hanbit Research" keeps "Hanbit Research".
Aliases: "한빛랩스(Hanbit Labs)" (a name, then a parenthesised name in the other script) is one entity under
the name the chunk mentions first; relations use that name, plus one ``also_known_as`` relation to the alias.

Relations: a sentence with at least two entities gives one triple when a trigger from ``PATTERNS``
matches (developed / 개발 -> ``developed_by``, headquartered in / 본사 / 위치 -> ``located_in``, ...).
Which entity plays which role comes from word order in English and from the particle after each
entity in Korean (은/는/이/가 subject, 을/를 object, 에/에서 place, 의 possessor). Without a trigger
the sentence's first entity is linked to the next one as ``related_to`` only when the sentence states an
association ("partnered with", "협력", "合作") between the two names; names that merely co-occur give no relation. The
evidence is the sentence.

Subjects the sentence does not name: "It" / "This system" / "이 시스템은" / "该系统" and a Korean sentence with no
subject of its own ("1998년 A가 설립했으며", "관장은 B다") stand for the topic — the name that opened one of the last
``TOPIC_SPAN`` sentences. Chinese frames: A由B开发 / 负责, B开发的A, A位于B, 是B下属的, B负责人A, B的A (a person), and a
contact line "B：董事长 A；采购总监 C" or a byline "整理：B 中国市场经理 A" (the person after a title and a space, whatever the
family name). A people page's leaders ("- **Name** — founder and CEO.") lead and found the organisation its title names
(``leaders``, read over the whole document at ingest: the title is in the first chunk only).

Modules, one concern each: ``mention`` (the Mention record, the Korean particle after a name), ``names`` (generic
words, script, ``written_as_name``, ``romanized_stem``), ``kinds`` (entity types), ``kiwi`` (the Korean analyser,
one per process), ``mentions_en`` / ``mentions_ko`` / ``mentions_zh`` (finding names per language), ``mentions``
(``find_mentions``: all languages merged), ``patterns`` (relation triggers), ``relations_en`` / ``relations_ko`` /
``relations_zh`` (relation frames per language), ``relations`` (which language's rules, ``related_to``), ``topic``
(unnamed subjects), ``aliases`` (alias pairs, canonical names), ``tables`` (relations a Markdown table's header
states: "| Team | Lead |"), ``leaders`` (a people page's founders and chief executive), ``pipeline`` (``extract``: one
chunk).
"""
from __future__ import annotations

from rag.extract.aliases import ALIAS_PREDICATE
from rag.extract.kiwi import warm_up
from rag.extract.mentions import find_mentions
from rag.extract.names import _script, is_generic, romanized_stem, written_as_name
from rag.extract.pipeline import extract
from rag.romanize import romanize  # re-exported: callers and tests import it from here

# what rag/, tests/ and the UI import from rag.extract (``_script``: rag/tools/graph.py)
__all__ = ["ALIAS_PREDICATE", "_script", "extract", "find_mentions", "is_generic", "romanize", "romanized_stem",
           "warm_up", "written_as_name"]
