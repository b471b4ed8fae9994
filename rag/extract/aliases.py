"""Aliases: "한빛랩스(Hanbit Labs)" (a name, then a parenthesised name in the other script) is one entity under the
name the chunk mentions first (``_canonical_names``); ``_apply_aliases`` rewrites a sentence's mentions to it."""
from __future__ import annotations

import re

from rag.extract.kinds import _entity_type
from rag.extract.mention import _KO_PARTICLE_RE, Mention
from rag.extract.names import _script
from rag.graphstore.base import entity_key


ALIAS_PREDICATE = "also_known_as"
_ALIAS_OPEN_RE = re.compile(r"\s*[(（]\s*")
_ALIAS_CLOSE_RE = re.compile(r"\s*[)）]")


def _alias_pairs(sentence: str, mentions: list[Mention]) -> list[tuple[Mention, Mention, int]]:
    """"한빛랩스(Hanbit Labs)", "Hanbit Labs (한빛랩스)": a name followed by a parenthesised name in the other
    script (Hangul / no Hangul) names the same thing. Gives (name, parenthesised name, end of the ")"). The
    parentheses may list the name in a third script too, before or after it ("Kim Meilan (金美兰, 김미란)", "Kim
    Meilan (김미란, 金美兰)"): a name of the list that is no mention of its own is passed over."""
    pairs = []
    for a, b in zip(mentions, mentions[1:]):
        scripts = {_script(a.name), _script(b.name)}
        if len(scripts) < 2:
            continue
        opened = _ALIAS_OPEN_RE.match(sentence, a.end)
        if opened is None or not _other_names(sentence[opened.end():b.start], scripts, before=True):
            continue
        close = _ALIAS_CLOSE_RE.search(sentence, b.end)
        if close and _other_names(sentence[b.end:close.start()], scripts, before=False):
            pairs.append((a, b, close.end()))
    return pairs


_LIST_SEPARATOR_RE = re.compile(r"\s*[,，、/]\s*")


def _other_names(between: str, scripts: set[str], before: bool) -> bool:
    """``between`` (inside the parentheses, before or after the alias) is empty or names in a third script, each
    followed (``before``) or preceded by a list separator."""
    if not between.strip():
        return True
    items = _LIST_SEPARATOR_RE.split(between.strip())
    # "(金美兰, 김미란": the list ends in a separator before the alias; ", 金美兰)": it starts with one after it
    if items[-1 if before else 0] != "":
        return False
    items = [t for t in items if t]
    return bool(items) and all(len(t) <= 40 and "(" not in t and "（" not in t and _script(t) not in scripts
                               for t in items)


def _canonical_names(per_sentence: list[tuple[str, list[Mention]]]) -> dict[str, str]:
    """entity_key(alias) -> display name of the canonical entity: of two names written as aliases, the one
    the chunk mentions first (chains resolve to the first name of all)."""
    first_seen: dict[str, tuple[int, str]] = {}
    order = 0
    for _, mentions in per_sentence:
        for m in mentions:
            first_seen.setdefault(entity_key(m.name), (order, m.name))
            order += 1
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        while key in parent:
            key = parent[key]
        return key

    for sentence, mentions in per_sentence:
        for a, b, _ in _alias_pairs(sentence, mentions):
            ra, rb = root(entity_key(a.name)), root(entity_key(b.name))
            if ra != rb:
                keep, drop = sorted((ra, rb), key=lambda k: first_seen[k][0])
                parent[drop] = keep
    return {key: first_seen[root(key)][1] for key in parent}


def _apply_aliases(sentence: str, mentions: list[Mention], canonical: dict[str, str]) -> list[Mention]:
    """The sentence's mentions under their canonical names; "A (B)" becomes one mention that spans the
    parentheses and takes the particle after them ("한빛랩스(Hanbit Labs)는" -> subject)."""
    if not canonical:
        return mentions
    merged = {id(a): (b, end) for a, b, end in _alias_pairs(sentence, mentions)}
    out: list[Mention] = []
    skip: set[int] = set()
    for m in mentions:
        if id(m) in skip:
            continue
        name = canonical.get(entity_key(m.name), m.name)
        start, end, particle = m.start, m.end, m.particle
        if id(m) in merged:
            b, end = merged[id(m)]
            skip.add(id(b))
            pm = _KO_PARTICLE_RE.match(sentence[end:])
            particle = re.sub(r"\s+", "", pm.group("p")) if pm else ""
        kind = m.type if m.type in ("person", "org") else _entity_type(name)
        if id(m) in merged and merged[id(m)][0].type in ("person", "org"):
            kind = merged[id(m)][0].type
        out.append(Mention(start, end, name, kind, particle))
    return out
