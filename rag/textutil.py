"""Text utilities for Korean, English and Chinese: tokens, key terms, sentences.

Rule-based on purpose: kiwipiepy gives better Korean morphology but costs several
seconds to start, and BM25 / key-term coverage only need stable word stems.

- Latin words and numbers are lowercased (NFKC); "9,620" becomes "9620"; compounds such
  as "bge-large-zh-v1.5" stay whole and ``tokenize`` also emits their parts.
- Korean words lose common particles and endings ("본사를" -> "본사", "개발했다" -> "개발");
  ``tokenize`` also emits syllable bigrams of longer stems, so "형태소분석기" still meets "분석기".
- Chinese runs become character bigrams for ``tokenize`` (a lone character stays a unigram); ``key_terms`` cuts
  them into words with jieba (a key term is looked up as a phrase, so a word of three characters still matches).

``key_terms(q)`` returns terms in the same normal form as ``tokenize``, so a key term of a
question can be looked up in the token set of a document; a Chinese key term (a word) is looked up as a phrase.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_TOKEN_RE = re.compile(
    r"(?P<latin>[a-z0-9]+(?:[-_.][a-z0-9]+)*)"
    r"|(?P<hangul>[\uac00-\ud7a3]+)"
    r"|(?P<han>[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)"
)
_KANA_RE = re.compile(r"[\u3040-\u30ff]")
_THOUSANDS_RE = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_POSSESSIVE_RE = re.compile(r"['\u2019]s\b")

# Korean particles / copulas / endings, stripped from the end of a word (longest first).
# One-syllable ones are stripped only when two syllables remain ("서울이" -> "서울", "아이" stays).
_KO_SUFFIXES_LONG = (
    # question / copula endings
    "이었습니까", "였습니까", "입니까", "인가요", "인가", "인지", "는가", "나요", "까요", "습니까", "ㅂ니까",
    "이었다", "였다", "입니다", "이에요", "예요", "이다", "이며", "이고", "이라는", "라는", "이라고", "라고",
    "이라", "이란", "란",
    # spoken question endings after a noun ("소속인데", "건이었죠", "도스였나요", "대학이랑")
    "이었나요", "였나요", "이었어요", "였어요", "이었죠", "였죠", "이었는데", "였는데", "인데요", "인데", "이죠",
    "이랑", "이라서", "라서",
    # verbal endings after a noun (하다 / 되다 / 있다 families)
    "했나요", "했습니까", "했는지", "했는가", "했어요", "했을까", "하나요", "합니까", "하는가", "하는지",
    "되나요", "됐나요", "되었나요", "됐습니까", "되었는지", "됐는지", "되는가", "되었고", "됐고", "되었으며",
    "하였습니다", "했습니다", "합니다", "하였다", "했다", "한다", "하는", "하고", "하며", "했으며", "했고",
    "하여", "해서", "하기", "하면", "했던", "한", "할",
    "되었습니다", "되었다", "됐다", "된다", "되는", "되어", "되며", "됩니다", "되고", "된", "될",
    "시켰다", "시킨",
    "받았다", "받은", "받는",
    # particles (with combinations)
    "에서는", "에서도", "에서의", "에서", "으로는", "으로도", "으로서", "으로써", "으로의", "으로",
    "로는", "로도", "로서", "로써", "로의", "에게서", "에게는", "에게", "한테서", "한테",
    "께서는", "께서", "까지는", "까지도", "까지", "부터는", "부터", "에는", "에도", "에의",
    "와의", "과의", "와는", "과는", "와도", "과도", "이나", "이든", "처럼", "보다", "마다", "조차", "밖에",
    "만의", "만이", "만을", "은요", "는요", "들의", "들은", "들이", "들을", "들도", "들",
)
_KO_SUFFIXES_SHORT = ("은", "는", "이", "가", "을", "를", "의", "에", "도", "만", "와", "과", "로", "나", "요",
                      "엔", "랑", "죠")  # 엔 = 에는 ("병원엔"), 랑 = 와 ("세온대랑"), 죠 = 지요
_KO_SUFFIXES = tuple(sorted(_KO_SUFFIXES_LONG, key=len, reverse=True))

STOP_WORDS_EN = frozenset(
    """a an the and or but if then else of to in on at by for with from as into onto over under about
    is are was were be been being am do does did done have has had having it its this that these those there
    here i you he she we they me him her us them my your his our their mine yours not no nor so too very
    can could would should will shall may might must just also than such only own same both each few more
    most other some any all s t d ll re ve m o y per via up down out off again further once during before
    after above below between through while until against among whose whom who what which when where why
    how please tell me explain describe give show list find know""".split()
)
QUESTION_WORDS_EN = frozenset("what which when where why how who whom whose".split())

STOP_WORDS_KO = frozenset(
    """것 수 등 및 또는 그리고 그러나 하지만 또한 그 이 저 그것 이것 저것 여기 거기 때 중 더 잘 안 못 좀
    있 있다 없다 있는 없는 있습니다 없습니다 있나요 있어요 하다 되다 한다 된다 하는 되는 해 돼 해요 했 했나요 했어요
    위해 대해 대한 통해 관한 관해 따라 따르면 의해 대하여 가장 매우 아주 모든 각 어떤 어느 무슨 몇 얼마
    무엇 무엇인가 무엇인가요 뭐 뭔가 뭘 언제 누구 누가 누구인가 어디 어디서 왜 어떻게 어떤가 어떻게 어때
    알려줘 알려주세요 알려 주세요 설명 설명해줘 설명해 말해줘 궁금 궁금해 궁금합니다 좀 제 저는 나는 우리""".split()
)
QUESTION_WORDS_KO = frozenset("무엇 뭐 뭔가 언제 누구 누가 어디 왜 어떻게 어떤 어느 무슨 몇 얼마".split())

STOP_WORDS_ZH = frozenset(
    """的 了 是 在 和 与 及 或 也 都 就 而 但 并 把 被 让 给 对 于 从 向 以 之 其 这 那 这个 那个 这些 那些
    什么 哪 哪个 哪些 哪里 谁 何时 何地 为什么 怎么 怎样 如何 多少 几 吗 呢 吧 啊 请问 告诉 我 你 他 她 它
    我们 你们 他们 一个 有 没有 是否""".split()
) | frozenset(
    # a question word with its classifier or unit is one question word: "哪天开的" leaves no "天开", "几点关门" no
    # "点关门" (language, not tuned)
    """哪天 哪年 哪一年 哪一天 哪家 哪位 哪种 几天 几点 几个 几次 几年 几月 几号 几岁 几位 几种 几家 几名 几间
    几周 几小时 几分钟 几倍 多久 多长 多长时间 多大 多远 多高 多重 多少钱 多少天 多少个 多少次 多少人 多少家""".split()
)
QUESTION_WORDS_ZH = frozenset("什么 哪 哪个 哪些 哪里 谁 何时 为什么 怎么 怎样 如何 多少 几 吗 呢".split())

# single syllables that are units or fillers, not content
KO_WEAK_SINGLE = frozenset("년 월 일 개 명 번 회 시 분 초 곳 점 및 등 것 수 때 중 더 잘 안 못 좀 제".split())

STOP_WORDS = STOP_WORDS_EN | STOP_WORDS_KO | STOP_WORDS_ZH
QUESTION_WORDS = QUESTION_WORDS_EN | QUESTION_WORDS_KO | QUESTION_WORDS_ZH


STEMMABLE = re.compile(r"[a-z]{4,}")  # English words long enough to stem


@lru_cache(maxsize=1)
def _english_stemmer():
    import snowballstemmer  # the Snowball (Porter 2) English stemmer

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=50000)
def english_stem(word: str) -> str:
    """The Snowball stem of one lowercase English word ("instruments" → "instrument", "autoclaved" → "autoclav");
    key-term coverage compares stems when the words differ (BM25 tokens stay unstemmed)."""
    return _english_stemmer().stemWord(word)


def _normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower()
    text = _THOUSANDS_RE.sub("", text)
    return _POSSESSIVE_RE.sub("", text)


def strip_korean(word: str) -> str:
    """Remove trailing particles / endings from one Hangul word ("카카오는" -> "카카오")."""
    for _ in range(2):  # "회사에서는" needs one pass, "회사들에게" two
        before = word
        for suffix in _KO_SUFFIXES:
            if word.endswith(suffix) and len(word) > len(suffix):
                word = word[: -len(suffix)]
                break
        else:
            for suffix in _KO_SUFFIXES_SHORT:
                if word.endswith(suffix) and len(word) >= 3:
                    word = word[:-1]
                    break
        if word == before:
            break
    if len(word) >= 3 and word[-1] in "했됐":  # "개발했" (from 개발했지만, 개발했을) -> "개발"
        word = word[:-1]
    return word


def _is_particle(word: str) -> bool:
    return word in _KO_SUFFIXES_SHORT or word in _KO_SUFFIXES_LONG


def _bigrams(run: str) -> list[str]:
    if len(run) < 2:
        return [run] if run else []
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _words(text: str) -> list[tuple[str, str]]:
    """(kind, normalised word) pairs; Korean words already stripped of particles."""
    out: list[tuple[str, str]] = []
    for m in _TOKEN_RE.finditer(_normalize(text)):
        kind = m.lastgroup or ""
        word = m.group(0)
        if kind == "hangul":
            if _is_particle(word):
                continue
            word = strip_korean(word)
        out.append((kind, word))
    return out


def tokenize(text: str) -> list[str]:
    """Tokens for BM25: Latin words (compounds and their parts), Korean stems (+ syllable bigrams
    of stems of 3+ syllables), Chinese character bigrams. English stop words are dropped."""
    tokens: list[str] = []
    for kind, word in _words(text):
        if kind == "latin":
            if word in STOP_WORDS_EN:
                continue
            tokens.append(word)
            if "-" in word or "_" in word:
                tokens.extend(p for p in re.split(r"[-_]", word) if p and p not in STOP_WORDS_EN and p != word)
        elif kind == "hangul":
            if word in STOP_WORDS_KO:
                continue
            tokens.append(word)
            if len(word) >= 3:
                tokens.extend(_bigrams(word))
        else:
            for piece in _zh_content_runs(word):
                tokens.extend(_bigrams(piece))
    return tokens


def _zh_content_runs(run: str) -> list[str]:
    """Split a Chinese run at stop words / question words (longest match first)."""
    words = sorted(STOP_WORDS_ZH, key=len, reverse=True)
    pieces: list[str] = []
    current = ""
    i = 0
    while i < len(run):
        for w in words:
            if run.startswith(w, i):
                if current:
                    pieces.append(current)
                current = ""
                i += len(w)
                break
        else:
            current += run[i]
            i += 1
    if current:
        pieces.append(current)
    return pieces


# Single characters that are (almost always) function words in Chinese: a question's key terms are cut there, so
# "每小时最多能处理多少个订单行" gives 小时 / 最多 / 处理 / 订单行 rather than bigrams across word edges
# (人每, 多能, 个订) that no sentence contains. Only key terms use this; BM25 tokens are unchanged.
_ZH_FUNCTION_CHARS = frozenset("的了吗呢吧啊每个能可会很将已还又再才只被把其及与或并而但就也都是在对于从给让")
_ZH_PARTICLES = frozenset("的了吗呢吧啊每个")  # never inside a content word


def _zh_key_runs(run: str) -> list[str]:
    """Content runs of a Chinese run for key terms: cut at stop words, then at single function characters;
    one-character leftovers are dropped (too weak to be evidence on their own)."""
    out: list[str] = []
    for piece in _zh_content_runs(run):
        current = ""
        for i, ch in enumerate(piece):
            nxt = piece[i + 1] if i + 1 < len(piece) else ""
            if (ch in _ZH_FUNCTION_CHARS and len(current) == 1 and ch not in _ZH_PARTICLES and nxt
                    and nxt not in _ZH_FUNCTION_CHARS):
                # a function character between two content characters is inside a word: 许可证 (licence), not 许 / 证
                current += ch
                continue
            if ch in _ZH_FUNCTION_CHARS:
                if len(current) >= 2:
                    out.append(current)
                current = ""
            else:
                current += ch
        if len(current) >= 2:
            out.append(current)
    return out


def key_terms(text: str) -> list[str]:
    """Content words of a question or sentence, in ``tokenize``'s normal form, deduplicated in order.
    Stop words and question words (무엇/언제/누구, what/which/how, 什么/谁) are removed."""
    terms: list[str] = []
    japanese = bool(_KANA_RE.search(text))
    for kind, word in _words(text):
        if kind == "latin":
            if word in STOP_WORDS_EN or (len(word) == 1 and not word.isdigit()):
                continue
            terms.append(word)
        elif kind == "hangul":
            if word in STOP_WORDS_KO or word in QUESTION_WORDS_KO or (len(word) == 1 and word in KO_WEAK_SINGLE):
                continue
            terms.append(word)
        else:
            for piece in _zh_key_runs(word):
                # jieba is a Chinese segmenter: the kanji of a Japanese text (it has kana) keep their bigrams
                terms.extend(_bigrams(piece) if japanese else _zh_words(piece))
    seen: set[str] = set()
    return [t for t in terms if not (t in seen or seen.add(t))]


@lru_cache(maxsize=1)
def _jieba():
    """jieba (the ecosystem's standard Chinese word segmenter, its dictionary bundled in the package), loaded on first
    use (about half a second), quiet."""
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


@lru_cache(maxsize=20000)
def _zh_words(piece: str) -> tuple[str, ...]:
    """The words of a Chinese content run (``_zh_key_runs``) for key terms, by jieba: '报名去世温大学交换要交' gives
    报名 / 大学 / 交换 … instead of the bigrams across word edges (名去, 学交) that no sentence contains. A word of
    four or more characters gives its shorter dictionary words (生日蛋糕 → 生日 / 蛋糕: a document may write either
    alone); a lone character is too weak to be evidence on its own and is dropped. A run in which jieba finds no word
    of two characters keeps its bigrams. (Segmenting the whole question first, so that jieba sees more context, was
    measured and lost more dev answers than it won: docs/evaluation.md, tenth session.)"""
    if len(piece) <= 2:
        return (piece,) if len(piece) == 2 else ()
    jieba = _jieba()
    out: list[str] = []
    for word in jieba.lcut(piece):
        if len(word) >= 4:
            parts = [w for w in jieba.lcut_for_search(word) if 2 <= len(w) < len(word)]
            out.extend(parts or [word])
        elif len(word) >= 2:
            out.append(word)
    return tuple(out) if out else tuple(_bigrams(piece))


_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
# English abbreviations that end in a dot inside a sentence ("led by Dr. Sungho Yoon", "Prof. Moon", "e.g. a table"):
# no sentence ends there (language, not tuned; single initials are left out: "Plan B." ends a sentence)
_ABBREVIATION_RE = re.compile(
    r"(?:^|[\s(\[\"'“‘])(?:Dr|Prof|Mr|Mrs|Ms|Mx|St|Jr|Sr|Mt|Rev|Gen|Capt|Col|Lt|Sgt|No|Nos|vs|etc|approx|incl|"
    r"Inc|Ltd|Co|Corp|Dept|Univ|Fig|Figs|Vol|pp|ca|cf|e\.g|i\.e|Ph\.D)\.$")


def _split_block(block: str) -> list[str]:
    """One block's sentences: cut at each sentence end that does not follow an abbreviation."""
    parts: list[str] = []
    start = 0
    for m in _SENTENCE_END_RE.finditer(block):
        if block[m.start() - 1 : m.start()] == "." and _ABBREVIATION_RE.search(block[start : m.start()]):
            continue
        parts.append(block[start : m.start()])
        start = m.end()
    parts.append(block[start:])
    return parts


_BLOCK_START_RE = re.compile(r"^\s*(?:[#>|]|[-*+•·]\s|\d+[.)]\s|[A-Za-z가-힣]{1,12}:\s*$)")
_LINE_END_RE = re.compile(r"[.!?。！？:：]\s*$")


def _blocks(text: str) -> list[str]:
    """Paragraphs with hard-wrapped lines joined: a new block starts at a blank line, a heading,
    a list item or a table row, after a line that ends a sentence, after a short title-like line,
    and at an unindented line after a list item."""
    blocks: list[str] = []
    current, lines_in_current, in_list = "", 0, False
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        stripped = line.strip()
        if not stripped:
            if current:
                blocks.append(current)
            current, lines_in_current, in_list = "", 0, False
            continue
        starts_block = (
            not current
            or _BLOCK_START_RE.match(line) is not None
            or _LINE_END_RE.search(current) is not None
            or current.startswith(("#", "|"))
            or (lines_in_current == 1 and not in_list and len(current) <= 30 and len(current.split()) <= 4
                and not current.endswith((",", "，")))  # a title line such as "Rerankers"
            or (in_list and not line[:1].isspace())
        )
        if starts_block:
            if current:
                blocks.append(current)
            current, lines_in_current = stripped, 1
            in_list = re.match(r"\s*(?:[-*+•·]\s|\d+[.)]\s)", line) is not None
        else:
            current, lines_in_current = f"{current} {stripped}", lines_in_current + 1
    if current:
        blocks.append(current)
    return blocks


def split_sentences(text: str) -> list[str]:
    """Sentences: split after . ! ? followed by whitespace (Korean '다.' included) and after 。！？
    (no space needed). Hard-wrapped lines are joined first; blank lines, headings and list items
    always end a sentence. "v1.5" and "3.14" are not split."""
    out: list[str] = []
    for block in _blocks(text):
        out.extend(p.strip() for p in _split_block(block) if p and p.strip())
    return out


_LIST_OR_HEADING_RE = re.compile(r"^\s*(?:[-*•#|>]|\d+[.)]\s)")


def append_unwrapped(lines: list[str], line: str) -> None:
    """Append ``line`` to ``lines``, or join it to the last one when that line was hard-wrapped inside a sentence
    (25 characters or more, no sentence end); headings and list items ("1. …", "- …", "# …") stay on their own."""
    previous = lines[-1] if lines else ""
    wrapped = (previous and line and len(previous) >= 25 and not _LIST_OR_HEADING_RE.match(line)
               and not re.search(r"[.!?。！？:：|]$", previous))
    if wrapped:
        lines[-1] = f"{previous} {line}"
    else:
        lines.append(line)


_HANGUL_RE = re.compile(r"[\uac00-\ud7a3]")
_HAN_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def script_language(text: str) -> str:
    """'ko' when the text has Hangul, 'zh' when it has Chinese characters, else 'en' (by script only)."""
    if _HANGUL_RE.search(text):
        return "ko"
    if _HAN_RE.search(text):
        return "zh"
    return "en"


_LATIN_LETTER_RE = re.compile(r"[A-Za-z]")
# one Hangul syllable or Chinese character carries about as much text as this many Latin letters (a word of 5-6
# letters ~ 2 syllables); also the offline engine's (rag.engines.offline.rules re-exports it). Language, not tuned
LATIN_LETTERS_PER_CJK = 2.5


def dominant_language(text: str) -> str:
    """The script language most of ``text`` is written in: 'ko', 'zh' or 'en' (by script only). Unlike
    ``script_language``, an English text that writes one name in Hangul ("Halla (한라)") stays 'en'."""
    hangul, han = len(_HANGUL_RE.findall(text)), len(_HAN_RE.findall(text))
    latin = len(_LATIN_LETTER_RE.findall(text)) / LATIN_LETTERS_PER_CJK
    if not (hangul or han or latin):
        return "en"
    return max((("ko", hangul), ("zh", han), ("en", latin)), key=lambda pair: pair[1])[0]


def script_shares(text: str) -> dict[str, float]:
    """The share of ``text``'s letters in each script language ('ko', 'zh', 'en'; a Chinese character or Hangul
    syllable weighs LATIN_LETTERS_PER_CJK Latin letters); {} for a text without letters."""
    counts = {"ko": len(_HANGUL_RE.findall(text)), "zh": len(_HAN_RE.findall(text)),
              "en": len(_LATIN_LETTER_RE.findall(text)) / LATIN_LETTERS_PER_CJK}
    total = sum(counts.values())
    return {lang: n / total for lang, n in counts.items() if n} if total else {}


def normalize_query(query: str) -> str:
    """A query's identity for repetition detection: NFKC, lowercased, punctuation dropped,
    Korean particles stripped, whitespace collapsed ("카카오는 어디에?" == "카카오 어디")."""
    return " ".join(word for _, word in _words(query))
