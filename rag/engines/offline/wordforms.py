"""Readings of words and texts that key-term coverage (``coverage``) and grading ask for:

- ``korean_function_words``: the words of a Korean question that qualify its asking and name no matter a text could
  hold (kiwipiepy's tags): "제일 먼저 착용하는 게 뭐예요?" asks about 착용, not about 제일, 먼저 or 게;
- ``korean_topics``: the nouns a Korean question marks as its topic with 은 / 는 ("학생은 연회비를 얼마 내요?"), which
  grading looks for in a Korean text (``grading._topic_missing``);
- ``LoanwordIndex``: a name written in one script that a text spells in the other as a loanword ("Legionella" /
  레지오넬라균, "Coldtrack" / 콜드트랙), by the consonant skeleton the graph tool already matches entity names by
  (``rag.romanize.loanword_key``);
- ``text_scripts``: the scripts a text is written in, sentence by sentence (which key terms it could contain).

Language, not tuned on a corpus (docs/evaluation.md, thirty-third and thirty-fourth sessions)."""
from __future__ import annotations

import re
from functools import lru_cache

from rag.engines.offline.rules import LATIN_LETTERS_PER_CJK, SCRIPT_MIN_LETTERS, SCRIPT_MIN_SHARE, SCRIPT_MIN_TEXT_SHARE
from rag.engines.offline.text import _HAN, _HANGUL
from rag.romanize import LOANWORD_KEY_MIN, loanword_key
from rag.textutil import strip_korean

LATIN_TERM = re.compile(r"[a-z][a-z\-]*")  # a key term in Latin letters (tokenize lowercases them)

# language (Korean morphology, kiwipiepy's tags): a word that is an adverb ("제일", "먼저", "진짜"), a pronoun ("그거"),
# an interjection or 아니 ("아니면"), 것 with a particle ("뭐가 제일 좋은 게": 게 / 건 / 걸), or 되- after
# "-아야 / -어야" ("닦아야 돼요": must) names no matter a text could hold: its absence from a text is no evidence.
# Determiners (MM) are not among them: kiwipiepy tags the numerals 세 / 두 / 첫 so.
_KO_FUNCTION_TAGS = frozenset({"MAG", "MAJ", "NP", "IC", "VCN"})
_KO_CONTENT_TAGS = ("NNG", "NNP", "VV", "VA", "XR", "SL", "SH", "SN")


@lru_cache(maxsize=1024)
def _korean_tokens(question: str) -> tuple:
    """kiwipiepy's analysis of a question, once for every reading of it here."""
    from rag.extract.kiwi import _get_kiwi

    return tuple(_get_kiwi().tokenize(question))


@lru_cache(maxsize=4096)
def korean_function_words(question: str) -> frozenset[str]:
    """The words (as written, with their particles and endings) of a Korean question that are function words
    (``_KO_FUNCTION_TAGS``); empty for a question without Hangul. ``coverage.question_terms`` drops their terms."""
    if not _HANGUL.search(question):
        return frozenset()
    tokens = _korean_tokens(question)
    out: set[str] = set()
    for m in re.finditer(r"\S+", question):
        inside = [i for i, t in enumerate(tokens) if m.start() <= t.start < m.end()]
        if not inside or not _HANGUL.search(m.group()):
            continue
        first, prev = tokens[inside[0]], tokens[inside[0] - 1] if inside[0] > 0 else None
        function = (first.tag in _KO_FUNCTION_TAGS or (first.tag == "NNB" and first.form == "것")
                    or (first.form == "되" and first.tag.startswith("VV") and prev is not None
                        and prev.tag == "EC" and prev.form.endswith("야")))
        if function and not any(tokens[i].tag.startswith(_KO_CONTENT_TAGS) for i in inside[1:]):
            out.add(m.group())
    return frozenset(out)


@lru_cache(maxsize=4096)
def korean_topics(question: str) -> tuple[tuple[str, int], ...]:
    """(word as written before its particle, where the particle ends) of every noun a Korean question marks as its
    topic with 은 / 는 (kiwipiepy's JX after a noun: "학생은", "망원점은"; not the adnominal ending of "착용하는")."""
    if not _HANGUL.search(question):
        return ()
    tokens = _korean_tokens(question)
    return tuple((question[question.rfind(" ", 0, t.start) + 1 : t.start], t.start + t.len)
                 for prev, t in zip(tokens, tokens[1:])
                 if t.tag == "JX" and t.form in ("은", "는") and prev.tag.startswith(("NN", "NR", "SL", "SH")))


def loanword_keys(word: str) -> tuple[str, ...]:
    """The consonant skeletons of a word (``rag.romanize.loanword_key``); a Latin g before e / i / y is read both
    hard and soft ("Legionella" → 레지오넬라, "Target" → 타깃): language, English spelling."""
    if _HANGUL.search(word):
        return (loanword_key(word),)
    soft = re.sub(r"g(?=[eiy])", "j", word.lower())
    return (loanword_key(word), loanword_key(soft)) if soft != word.lower() else (loanword_key(word),)


@lru_cache(maxsize=8192)
def spelled_as_loanword(word: str) -> bool:
    """A Hangul word with a syllable that is no Sino-Korean reading (``rag.sinokorean``'s table): 콜드트랙 (콜, 드, 트,
    랙), 레지오넬라 (레, 넬) — a loanword's spelling. 신청, 설명, 간격, 도서관 are read from Chinese characters and are
    no spelling of a foreign name whatever their consonants (they met "Seongjin", "Salmon", "Council", "Design")."""
    readings = _sino_korean_syllables()
    return any(ch not in readings for ch in word if "\uac00" <= ch <= "\ud7a3")


@lru_cache(maxsize=1)
def _sino_korean_syllables() -> frozenset[str]:
    from rag.sinokorean import _table  # loaded on first use, as rag.sinokorean does

    return frozenset(_table().values())


class LoanwordIndex:
    """The consonant skeletons of a text's Hangul words spelled as loanwords (``spelled_as_loanword``; without a
    particle after them, ``textutil.strip_korean``: "콜드트랙이") and of its capitalised Latin words. Only names: a Latin word of the text
    must be capitalised, a Hangul term must be spelled as a loanword, and ``coverage`` looks a Latin term up only when
    the question writes it as a name — a common word's skeleton meets too many Korean words ("next" and 한옥스테이 are
    both n-k-s-t)."""

    def __init__(self, text: str) -> None:
        self.words: dict[tuple[str, str], str] = {}
        for word in re.findall(r"[\uac00-\ud7a3]{2,}", text):
            core = strip_korean(word)
            # the noun alone, and without a last syllable that names its kind (레지오넬라균: 균, 스노우팀: 팀)
            for form in (core, core[:-1]) if len(core) >= 4 else (core,):
                if spelled_as_loanword(form):
                    self.words.setdefault(("ko", loanword_key(form)), form)
        for word in re.findall(r"(?<![A-Za-z])[A-Z][A-Za-z]{2,}", text):
            for key in loanword_keys(word):
                self.words.setdefault(("en", key), word)

    def lookup(self, term: str) -> str:
        """The text's word that spells ``term`` in the other script ("" when none): a Latin term among the Hangul
        words, a Hangul term among the Latin ones; skeletons of at least ``LOANWORD_KEY_MIN`` letters."""
        latin = bool(LATIN_TERM.fullmatch(term))
        if not (latin or (_HANGUL.search(term) and term.isalpha() and spelled_as_loanword(term))):
            return ""
        side = "ko" if latin else "en"
        keys = [k for k in dict.fromkeys(loanword_keys(term)) if len(k) >= LOANWORD_KEY_MIN]
        return next((self.words[(side, k)] for k in keys if (side, k) in self.words), "")


_SENTENCE_BREAK = re.compile(r"[.!?](?=\s|$)|[。！？\n]")  # not the dot of "1.2m" or "v2.0"
_LATIN_LETTER = re.compile(r"[A-Za-z]")


@lru_cache(maxsize=20000)
def text_scripts(text: str) -> frozenset[str]:
    """The scripts ('ko' Hangul, 'zh' Han, 'en' Latin) the text is written in, judged sentence by sentence.

    A sentence is written in a script when that script has at least rules.SCRIPT_MIN_SHARE of its letters (a Hangul
    syllable or a Han character counts as rules.LATIN_LETTERS_PER_CJK Latin letters); the text is written in a
    script when such sentences hold at least rules.SCRIPT_MIN_TEXT_SHARE of its letters. So a Chinese document that
    writes a few Korean names in brackets ("白鹭号（백로호）") is not a text that could contain a Korean key term,
    a Korean document that names an English system ("ParcelHub") or has one English line is not an English text, and
    a document with a Korean and an English half is both."""
    counts = []
    for sentence in _SENTENCE_BREAK.split(text):
        ko = len(_HANGUL.findall(sentence)) * LATIN_LETTERS_PER_CJK
        zh = len(_HAN.findall(sentence)) * LATIN_LETTERS_PER_CJK
        en = len(_LATIN_LETTER.findall(sentence))
        if ko + zh + en:
            counts.append((ko, zh, en))
    # a fragment (a name in a table cell, "통영") says little about the language of the text: only sentences of
    # SCRIPT_MIN_LETTERS+ letters count, unless the text has no such sentence
    counts = [c for c in counts if sum(c) >= SCRIPT_MIN_LETTERS] or counts
    grand = sum(sum(c) for c in counts)
    weight = {"ko": 0.0, "zh": 0.0, "en": 0.0}
    for ko, zh, en in counts:
        total = ko + zh + en
        for name, n in (("ko", ko), ("zh", zh), ("en", en)):
            if n and n / total >= SCRIPT_MIN_SHARE:
                weight[name] += total
    return frozenset(k for k, w in weight.items() if grand and w / grand >= SCRIPT_MIN_TEXT_SHARE)
