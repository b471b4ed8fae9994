"""A name bridge between Hangul and Latin script: Revised Romanization of Korean and normalised Latin name keys.

A question in English names a place or a person the way an English text writes it — "Dalmi-do", "Garam Branch" —
while a Korean document writes 달미도, 가람분관; the multilingual embedder matches such names only weakly and BM25
not at all (no shared token). Both sides are turned into the same *name key*: lowercase ASCII letters and digits,
hyphens, spaces and apostrophes dropped.

- ``romanize(hangul)``: the Revised Romanization of Korean (the official system of 2000, used for road signs, maps
  and most English texts about Korea), computed from the Unicode syllable arithmetic (initial, vowel, final) with the
  sound changes at syllable boundaries that the system writes: a final consonant moves to a following ㅇ (꽃이 →
  kkochi), nasalisation (국민 → gungmin, 종로 → jongno), ㄹ+ㄴ / ㄴ+ㄹ → ll (신라 → silla), ㅎ with a following
  plosive (좋다 → jota). Aspiration after ㄱ/ㄷ/ㅂ is not written (묵호 → mukho), as the system does for names.
- ``hangul_keys(stem)``: the romanized stem and its first 2-4 syllables: Korean names are usually a proper name
  followed by a common noun written as one word (가람분관 = 가람 + 분관, 햇살어린이도서관), so "Garam" meets the
  prefix "garam".
- ``latin_keys(word)``: a Latin word as a key ("Dalmi-do" → dalmido and its parts dalmi / do).

``rag.tools.vector`` indexes these keys of every chunk as a fourth ranking (the *name channel*) and looks the keys of
a question up there only across scripts: Latin words of the question against Hangul of the documents, Hangul words of
the question against capitalised Latin words of the documents (names), so same-script matching stays with BM25.
"""
from __future__ import annotations

import re
import unicodedata

_INITIALS = ("g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p", "h")
_VOWELS = ("a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u", "wo", "we", "wi", "yu",
           "eu", "ui", "i")
# finals: index 0 none, then ㄱ ㄲ ㄳ ㄴ ㄵ ㄶ ㄷ ㄹ ㄺ ㄻ ㄼ ㄽ ㄾ ㄿ ㅀ ㅁ ㅂ ㅄ ㅅ ㅆ ㅇ ㅈ ㅊ ㅋ ㅌ ㅍ ㅎ
_FINAL_SOUND = ("", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "l", "l", "l", "p", "l", "m", "p", "p", "t", "t",
                "ng", "t", "t", "k", "t", "p", "t")
# a final before a vowel (next initial ㅇ): what stays, and the initial index that moves to the next syllable
# (None: nothing moves; ㅇ stays "ng"; ㅎ is silent)
_LIAISON = {1: ("", 0), 2: ("", 1), 3: ("k", 9), 4: ("", 2), 5: ("n", 12), 6: ("", 2), 7: ("", 3), 8: ("", 5),
            9: ("l", 0), 10: ("l", 6), 11: ("l", 7), 12: ("l", 9), 13: ("l", 16), 14: ("l", 17), 15: ("", 5),
            16: ("", 6), 17: ("", 7), 18: ("p", 9), 19: ("", 9), 20: ("", 10), 22: ("", 12), 23: ("", 14),
            24: ("", 15), 25: ("", 16), 26: ("", 17), 27: ("", 11)}
_K_FINALS = frozenset((1, 2, 3, 9, 24))  # sound k
_T_FINALS = frozenset((7, 19, 20, 22, 23, 25, 27))  # sound t
_P_FINALS = frozenset((14, 17, 18, 26))  # sound p
_ASPIRATED = {0: 15, 3: 16, 12: 14}  # ㅎ final + ㄱ/ㄷ/ㅈ → ㅋ/ㅌ/ㅊ
_N, _R, _M, _IEUNG, _H = 2, 5, 6, 11, 18  # initial indexes


def _syllable(ch: str) -> tuple[int, int, int] | None:
    code = ord(ch) - 0xAC00
    if 0 <= code < 11172:
        return code // 588, (code % 588) // 28, code % 28
    return None


def romanize(text: str) -> str:
    """Revised Romanization of the Hangul syllables of ``text`` (other characters are kept as they are)."""
    out: list[str] = []
    chars = list(text)
    parts = [_syllable(c) for c in chars]
    carry_initial: int | None = None  # the initial that the previous syllable's final changed into
    for i, part in enumerate(parts):
        if part is None:
            out.append(chars[i])
            carry_initial = None
            continue
        initial, vowel, final = part
        if carry_initial is not None:
            initial = carry_initial
        carry_initial = None
        nxt = parts[i + 1] if i + 1 < len(parts) else None
        coda = _FINAL_SOUND[final]
        if final and nxt is not None:
            n_init = nxt[0]
            if n_init == _IEUNG and final != 21:  # liaison
                if final in _LIAISON:
                    coda, moved = _LIAISON[final]
                    carry_initial = moved if moved != 11 else None
                    if final == 8:  # ㄹ before a vowel is r
                        coda, carry_initial = "", _R
            elif n_init in (_N, _M):
                if final in _K_FINALS:
                    coda = "ng"
                elif final in _T_FINALS:
                    coda = "n"
                elif final in _P_FINALS:
                    coda = "m"
                elif final == 8 and n_init == _N:  # ㄹ + ㄴ → ll
                    carry_initial = _R
                    coda = "l"
            elif n_init == _R:
                if final in (4, 8):  # ㄴ/ㄹ + ㄹ → ll
                    coda, carry_initial = "l", _R
                elif final in (16, 21):  # ㅁ/ㅇ + ㄹ → n
                    carry_initial = _N
                elif final in _K_FINALS:
                    coda, carry_initial = "ng", _N
                elif final in _P_FINALS:
                    coda, carry_initial = "m", _N
            elif final == 27 and n_init in _ASPIRATED:  # ㅎ + ㄱ/ㄷ/ㅈ
                coda, carry_initial = "", _ASPIRATED[n_init]
        out.append(_INITIALS[initial] + _VOWELS[vowel] + coda)
    return "".join(out).replace("lr", "ll")  # ㄹ after an l sound is written l (설날 → seollal)


_HANGUL_WORD = re.compile(r"^[\uac00-\ud7a3]+$")
_KEY_STRIP = re.compile(r"[^a-z0-9]")
MIN_KEY_CHARS = 4  # a key of fewer letters ("gu", "san") meets too many unrelated words
PREFIX_SYLLABLES = (2, 3, 4)


def name_key(word: str) -> str:
    """Lowercase ASCII letters and digits of ``word`` (accents folded: "Jéju" → "jeju")."""
    folded = unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode("ascii")
    return _KEY_STRIP.sub("", folded.lower())


def hangul_keys(stem: str) -> list[str]:
    """Name keys of a Hangul stem of two syllables or more: its romanization and that of its first 2-4 syllables."""
    if len(stem) < 2 or not _HANGUL_WORD.match(stem):
        return []
    keys = [romanize(stem)]
    keys.extend(romanize(stem[:n]) for n in PREFIX_SYLLABLES if n < len(stem))
    seen: set[str] = set()
    return [k for k in keys if len(k) >= MIN_KEY_CHARS and not (k in seen or seen.add(k))]


def latin_keys(word: str) -> list[str]:
    """Name keys of a Latin word: the whole word without hyphens/apostrophes, and its hyphen-separated parts."""
    keys = [name_key(word)]
    if "-" in word or "'" in word or "\u2019" in word:
        keys.extend(name_key(p) for p in re.split(r"[-'\u2019]", word))
    seen: set[str] = set()
    return [k for k in keys if len(k) >= MIN_KEY_CHARS and not (k in seen or seen.add(k))]


_HANGUL_RUN = re.compile(r"[\uac00-\ud7a3]+")
_LATIN_RUN = re.compile(r"[A-Za-z\u00c0-\u024f][A-Za-z0-9\u00c0-\u024f]*(?:['\u2019-][A-Za-z0-9\u00c0-\u024f]+)*")
HANGUL_SIDE, LATIN_SIDE = "k:", "l:"  # a key from Hangul text / from Latin text


def _hangul_words(text: str) -> list[str]:
    """Hangul words of ``text``, without a particle written onto a Latin word or a number ("ParcelHub에서")."""
    return [m.group(0) for m in _HANGUL_RUN.finditer(text)
            if not (m.start() and text[m.start() - 1].isalnum() and not _HANGUL_RUN.match(text[m.start() - 1]))]


def _hangul_word_keys(word: str) -> list[str]:
    """Keys of a Hangul word: those of its stem (particles stripped) and of its first 2-4 syllables as written
    (달미도에서 → dalmi, dalmido)."""
    from rag.textutil import strip_korean

    keys = hangul_keys(strip_korean(word))
    keys.extend(romanize(word[:n]) for n in PREFIX_SYLLABLES if n < len(word))
    return [k for k in keys if len(k) >= MIN_KEY_CHARS]


def document_keys(text: str) -> list[str]:
    """Name keys of a chunk, each marked with its script: every Hangul word ("k:…") and every capitalised Latin
    word ("l:…": names are capitalised in English text; lowercase words are common words)."""
    keys: list[str] = []
    for word in _hangul_words(text):
        keys.extend(HANGUL_SIDE + k for k in _hangul_word_keys(word))
    for m in _LATIN_RUN.finditer(text):
        word = m.group(0)
        if word[0].isupper():
            keys.extend(LATIN_SIDE + k for k in latin_keys(word))
    return keys


def query_keys(text: str) -> list[str]:
    """Name keys of a question, looked up across scripts: its Latin words against the Hangul keys of the chunks,
    its Hangul words against their Latin keys. Stop words and short words are left out."""
    from rag.textutil import STOP_WORDS_EN

    keys: list[str] = []
    for m in _LATIN_RUN.finditer(text):
        word = m.group(0)
        if word.lower() in STOP_WORDS_EN:
            continue
        keys.extend(HANGUL_SIDE + k for k in latin_keys(word))
    for word in _hangul_words(text):
        keys.extend(LATIN_SIDE + k for k in _hangul_word_keys(word))
    seen: set[str] = set()
    return [k for k in keys if not (k in seen or seen.add(k))]


def is_name_key(token: str) -> bool:
    """A name key ("k:…" / "l:…"): ``rag.textutil.tokenize`` never makes a token with a colon."""
    return token[1:2] == ":" and token[:1] in ("k", "l")


def index_tokens(text: str) -> list[str]:
    """What the BM25 token cache keeps of a chunk: its BM25 tokens, then its name keys (``split_tokens``)."""
    from rag.textutil import tokenize

    return tokenize(text) + document_keys(text)


def split_tokens(tokens: list[str]) -> tuple[list[str], list[str]]:
    """(BM25 tokens, name keys) of a cached token list."""
    words = [t for t in tokens if not is_name_key(t)]
    return words, ([t for t in tokens if is_name_key(t)] if len(words) != len(tokens) else [])


def cross_script_match(term: str, keys: set[str] | frozenset[str]) -> str:
    """The name key through which a question's key ``term`` occurs in a text in the other script ("" when none):
    a Latin term against the text's Hangul keys (gureum ↔ 구름), a Hangul term against its capitalised Latin
    words. ``keys``: ``set(document_keys(text))``."""
    for key in query_keys(term):
        if key in keys:
            return key[2:]
    return ""


# A Korean name written in Chinese characters (西归浦 for Seogwipo / 서귀포, 大邱 for Daegu, 朝天 for Jocheon) is read
# with the Sino-Korean reading of each character (rag.sinokorean), then romanized. A Chinese text has no word edges,
# so every window of HAN_NAME_CHARS characters of its Chinese runs is read. Language, not tuned on a corpus. Only key-term
# matching uses these keys: as name keys of the retrieval's name channel (both directions) they brought up documents
# that merely name a common place (济州 for a question about Jeju) and lost more dev answers than they won
# (docs/evaluation.md, fifteenth session).
HAN_NAME_CHARS = (2, 3, 4)
_HAN_RUN_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def _reading_key(read: str) -> str:
    """The romanization of a Sino-Korean reading that is all Hangul syllables and at least MIN_KEY_CHARS letters
    long, else ""."""
    if not all(_syllable(ch) is not None for ch in read):
        return ""
    key = romanize(read)
    return key if len(key) >= MIN_KEY_CHARS else ""


def han_name_keys(text: str) -> set[str]:
    """The romanized Sino-Korean readings of every 2-4 character window of the text's Chinese runs (``_reading_key``):
    "西归浦分院" gives seogwipo among others. A run with a character that has no reading of one syllable is skipped."""
    from rag.sinokorean import reading

    keys: set[str] = set()
    for run in _HAN_RUN_RE.findall(text):
        read = reading(run)
        if len(read) != len(run):  # a character kept unread, or read as more than one syllable: no alignment
            continue
        keys.update(_reading_key(read[i : i + n]) for n in HAN_NAME_CHARS for i in range(len(read) - n + 1))
    keys.discard("")
    return keys


def han_term_name_key(term: str) -> str:
    """A Chinese key term of 2-4 characters as the romanized Sino-Korean reading a Latin text would write it in
    (大邱 → daegu); "" when it is no such term."""
    from rag.sinokorean import han_term_key

    if not (HAN_NAME_CHARS[0] <= len(term) <= HAN_NAME_CHARS[-1]):
        return ""
    key = han_term_key(term)
    return _reading_key(key) if len(key) == len(term) else ""


# A Chinese name written in Latin letters is written in pinyin ("Xi'an" 西安, "Qujiang" 曲江, "Suzhou" 苏州): the
# toneless pinyin of each character (``pypinyin``, whose phrase dictionary reads a character by its word: 重庆 is
# chongqing), joined over every window of HAN_NAME_CHARS characters, as with the Sino-Korean readings above, and used
# the same way (key-term matching only). Language, not tuned on a corpus.
def _pinyin(run: str) -> list[str]:
    from pypinyin import Style, lazy_pinyin

    return lazy_pinyin(run, style=Style.NORMAL, errors=lambda chars: [""] * len(chars))


# function characters (pronouns, particles, the commonest verbs): a window with one is a phrase, not a name, and its
# pinyin may spell an English word ("我们" is women)
_FUNCTION_HAN = frozenset("我你您他她它们的地得了着过是在和与及或有没不也都就要会能对为以把被让给从到这那哪个些吗呢吧啊")


def pinyin_name_keys(text: str) -> set[str]:
    """The toneless pinyin of every 2-4 character window of the text's Chinese runs without a function character, of
    MIN_KEY_CHARS letters or more: "西安曲江新区" gives xian, qujiang, xianqujiang among others."""
    keys: set[str] = set()
    for run in _HAN_RUN_RE.findall(text):
        syllables = _pinyin(run)
        if len(syllables) != len(run):
            continue
        for n in HAN_NAME_CHARS:
            for i in range(len(run) - n + 1):
                window = syllables[i : i + n]
                if all(window) and not _FUNCTION_HAN.intersection(run[i : i + n]):
                    keys.add("".join(window))
    return {k for k in keys if len(k) >= MIN_KEY_CHARS}


def han_term_pinyin_key(term: str) -> str:
    """A Chinese key term of 2-4 characters as the pinyin a Latin text would write it in (苏州 → suzhou); "" when it
    is no such term."""
    if (not (HAN_NAME_CHARS[0] <= len(term) <= HAN_NAME_CHARS[-1]) or not _HAN_RUN_RE.fullmatch(term)
            or _FUNCTION_HAN.intersection(term)):
        return ""
    syllables = _pinyin(term)
    key = "".join(syllables)
    return key if len(syllables) == len(term) and all(syllables) and len(key) >= MIN_KEY_CHARS else ""


# A Latin name written in Hangul ("프루프라인" for Proofline, "콜드트랙" for Coldtrack) is a loanword spelling, not a
# romanisation: vowels are added ("peu"), f becomes p, l and r are one sound, voicing is not kept, an r before a
# consonant is not written ("Tidemark" → 타이드마크). Both sides are reduced to the same *consonant skeleton*: sounds
# that Hangul cannot tell apart are merged (f/ph → p, v → b → p, th → t, c/k/q/g → k, d → t, l → r, z → j, x → ks),
# vowels, w, y and h are dropped, and a doubled consonant is one. Language (how Korean writes foreign names), not
# tuned on a corpus.
_LATIN_SOUNDS = (("gh", ""), ("dge", "j"), ("tch", "j"), ("ph", "p"), ("th", "t"), ("ch", "j"), ("sh", "s"),
                 ("ck", "k"), ("qu", "k"), ("ng", "n"), ("x", "ks"), ("f", "p"), ("v", "p"), ("b", "p"), ("c", "k"),
                 ("q", "k"), ("g", "k"), ("d", "t"), ("l", "r"), ("z", "j"))
# Hangul jamo → the same merged sounds, letter by letter (no sound changes between syllables: a loanword is spelled,
# "귤넷" is gyul-net); ㅇ as a final is "ng" → n
_HANGUL_INITIAL_SOUND = ("k", "k", "n", "t", "t", "r", "m", "p", "p", "s", "s", "", "j", "j", "j", "k", "t", "p", "")
_HANGUL_FINAL_SOUND = ("", "k", "k", "ks", "n", "nj", "n", "t", "r", "rk", "rm", "rp", "rs", "rt", "rp", "r", "m",
                       "p", "ps", "t", "t", "n", "j", "j", "k", "t", "p", "")  # ㅅ final is a t ("넷" net, "빗" bit)
LOANWORD_KEY_MIN = 4  # letters of the skeleton: a shorter one ("tr" for both Heatwell and "Tower") names too much


def loanword_key(text: str) -> str:
    """The consonant skeleton of a name, from Latin letters or from Hangul: "Proofline" and "프루프라인" → "prprn";
    "" for a name with no letters."""
    if re.search(r"[\uac00-\ud7a3]", text):
        out = []
        for ch in text:
            part = _syllable(ch)
            if part is not None:
                out.append(_HANGUL_INITIAL_SOUND[part[0]] + _HANGUL_FINAL_SOUND[part[2]])
        word = "".join(out)
    else:
        word = re.sub(r"[^a-z]", "", unicodedata.normalize("NFKD", text.lower()))
        word = re.sub(r"r(?=[^aeiouy]|$)", "", word)  # "mark" → 마크, "user" → 유저
        for a, b in _LATIN_SOUNDS:
            word = word.replace(a, b)
        word = re.sub(r"[aeiouwyh]", "", word)
    return re.sub(r"(.)\1+", r"\1", word)
