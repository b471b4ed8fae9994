"""Offline, rule-based entity and relation extraction (Korean, English, Chinese). Precision over recall.

Entities, per sentence:
- Latin proper-noun-like terms: capitalised word sequences ("Apex Labs", "Bank of Korea"), acronyms
  ("RAG", "NVIDIA") and model names with digits or dashes ("bge-reranker-v2-m3", "GPT-4o");
- Korean proper nouns: runs of kiwipiepy ``NNP`` tokens ("에이펙스 랩스", "노바-7"), with an attached
  common noun or an organisation suffix ("서울 대학교");
- quoted terms ("…", “…”, 「…」, 『…』);
- Chinese names: "陈立伟（Liwei Chen）" (a Han name before a parenthesised romanisation; a person's length follows
  the romanised given name), unit names ending in 组 / 室 / 馆 / 团队 …, places ending in 市 / 省 / 县, and a family
  name after a title ("主任周文静");
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
``TOPIC_SPAN`` sentences. Chinese frames: A由B开发 / 负责, B开发的A, A位于B, 是B下属的, B负责人A, B的A (a person).
"""
from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass

from rag.graphstore.base import entity_key
from rag.romanize import romanize  # Revised Romanization (one implementation, also the vector tool's name channel)
from rag.textutil import split_sentences
from rag.types import Entity, Extraction, Relation

MAX_ENTITY_CHARS = 60

# ---- entity patterns ---------------------------------------------------------
_CAP_WORD = r"[A-Z][A-Za-z0-9&]*(?:[-.][A-Za-z0-9]+)*"
_CAP_SEQ_RE = re.compile(rf"\b{_CAP_WORD}(?:\s+(?:(?:of|for|de|du|la|von|van)\s+)?{_CAP_WORD})*")
_MODEL_RE = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)+(?![\w-])")
_ACRONYM_RE = re.compile(r"\b[A-Z][A-Z0-9&]{1,}[a-z]?\b")
_QUOTED_RE = re.compile(r"[\"“]([^\"“”\n]{2,30})[\"”]|[「『《]([^」』》\n]{2,30})[」』》]|(?<![A-Za-z])‘([^‘’\n]{2,30})’")

# capitalised words that start sentences but name nothing
_SENTENCE_STARTERS = frozenset(
    """a an the this that these those it its in on at by for from with as after before during since while
    although however today yesterday tomorrow our we you they he she there here each both many most some all
    every no not one two three first second then also moreover furthermore finally unlike like because if
    when where what which who how why yes is are was were be do does did can could will would should may
    according based other another such his her their its my your""".split()
)
# acronyms that are roles or generic technology words, not things to link
_ACRONYM_STOP = frozenset(
    """AI CEO CTO CFO COO CPO VP HR IT GPU CPU API FAQ PDF URL ID OK UI UX QA PM ML NLP LLM MB GB TB KB
    ms MS AM PM USA US UK EU""".split()
)
# Generic words: a candidate made only of these (and joiners such as "and", "of", "과") names nothing
# ("Team", "Teams and Products", "Wednesday", "English", "Correct", "팀과 제품"). Also, a candidate that opens
# with a generic plural + "of" ("Employees of Hanbit Research") keeps only what follows "of".
_GENERIC_PLURALS_EN = frozenset(
    """teams products employees members staff users customers leads leaders managers engineers researchers
    departments companies services documents policies questions answers notes steps results models products
    partners clients students visitors contractors""".split()
)
_GENERIC_WORDS = frozenset(
    # English common nouns that appear capitalised at a sentence or heading start
    """team product employee member user customer lead leader manager engineer researcher department company
    service document policy question answer note step result model partner client student visitor contractor
    overview summary introduction contents appendix section table figure example examples contact contacts
    office hours day days week weeks month months year years time morning afternoon evening
    """.split()
    # weekdays and months
    + """monday tuesday wednesday thursday friday saturday sunday january february march april may june july
    august september october november december""".split()
    # language names
    + """english korean chinese japanese french german spanish""".split()
    # grade labels
    + """correct incorrect ambiguous relevant irrelevant partial pass fail true false""".split()
    # Korean equivalents
    + """팀 팀들 제품 제품들 직원 직원들 임직원 구성원 멤버 사용자 고객 회사 부서 팀장 리더 매니저 엔지니어 연구원들
    문서 정책 규정 질문 답변 개요 소개 요약 목차 부록 예시 사무실 오전 오후
    월요일 화요일 수요일 목요일 금요일 토요일 일요일
    영어 한국어 한글 중국어 일본어 프랑스어 독일어 스페인어
    정답 오답 모호""".split()
) | _GENERIC_PLURALS_EN
_GENERIC_JOINERS = frozenset("and or of for the & / · , 및 또는".split())
_KO_JOIN_SUFFIX_RE = re.compile(r"(?:과|와|및|의|들)$")


def is_generic(name: str) -> bool:
    """True when ``name`` is made only of generic words ("Team", "Teams and Products", "팀과 제품")."""
    words = [w for w in re.split(r"[\s/·,&()]+", name.strip()) if w]
    if not words:
        return True
    for word in words:
        low = word.casefold()
        if low in _GENERIC_WORDS or low in _GENERIC_JOINERS:
            continue
        stem = _KO_JOIN_SUFFIX_RE.sub("", low)
        if stem != low and stem in _GENERIC_WORDS:
            continue
        return False
    return True


_ORG_SUFFIXES_EN = ("inc", "inc.", "corp", "corp.", "corporation", "company", "labs", "lab", "ltd", "llc",
                    "university", "institute", "foundation", "group", "bank", "ai", "research", "technologies",
                    "team", "department", "division", "office", "agency", "council", "committee", "center",
                    "centre", "college", "school", "hospital", "ministry")
# language: job titles; "Executive Director of X" names X, and a title alone names nobody
_TITLE_WORDS = frozenset("""director directors head chief executive managing deputy general senior vice president chair
    chairman chairwoman chairperson manager lead leader founder co-founder officer principal dean ceo cto cfo coo
    secretary treasurer coordinator supervisor captain commander""".split())
_ORG_SUFFIXES_KO = ("대학교", "대학", "연구소", "연구원", "재단", "그룹", "은행", "전자", "병원", "센터", "회사",
                    "랩", "랩스", "본부", "학회", "협회", "공사", "테크", "소프트", "시스템즈", "코리아", "캠퍼스")

# ---- relation patterns -------------------------------------------------------


@dataclass(frozen=True)
class Pattern:
    predicate: str
    english: tuple[str, ...]  # regexes; in "X <trigger> Y" the left entity is X
    english_reversed: tuple[str, ...]  # "Y <trigger> X": the right entity is the subject of the predicate
    korean: tuple[str, ...]  # trigger stems
    # which Korean role is the predicate's subject: "object" (the thing made/used), "topic", "located"...
    ko_subject_role: str


PATTERNS: tuple[Pattern, ...] = (
    Pattern("developed_by",
            (r"\b(?:was|were|is|are|been)?\s*(?:developed|created|built|made|designed|released|trained|"
             r"introduced|published|proposed|invented)(?:\s+(?:in-house|internally|jointly|originally|mainly|"
             r"entirely|largely|together))?\s+by\b",
             r"\bis\s+an?\s+\w+(?:\s+\w+)?\s+(?:developed|created|built|released)\s+by\b"),
            (r"\b(?:developed|created|built|designed|released|introduced|published|proposed|invented|"
             r"develops|creates|builds)\b",),
            ("개발", "제작", "개발사", "만든", "만들", "출시", "공개", "발표", "제안", "고안"), "made"),
    Pattern("founded_by",
            (r"\b(?:was|were)?\s*(?:founded|established|co-founded|started)\s+(?:in\s+\d{4}\s+)?by\b",),
            (r"\b(?:founded|co-founded|established|founds)\b",
             r"\bis\s+the\s+(?:co-)?founder(?:\s+and\s+\w+)?\s+of\b"),
            ("설립", "창업", "창립", "설립자", "창업자"), "made"),
    Pattern("acquired",
            (r"\b(?:acquired|bought|purchased|took\s+over)\b",),
            (r"\b(?:was|were)\s+(?:acquired|bought|purchased)\s+by\b",),
            ("인수", "매입"), "acquirer"),
    Pattern("leads",
            (r"\b(?:leads|heads|manages|directs|oversees)\b",
             r"\b(?:is|was)\s+(?:the|its)\s+(?:[A-Za-z-]+\s+){0,2}(?:head|lead|leader|director|chair|chairperson|"
             r"president|manager|chief)\s+(?:of|at)\b"),
            (r"\b(?:is|are|was|were)\s+(?:led|headed|managed|directed)\s+by\b",),
            ("팀장", "이끈", "이끌", "이끄", "책임자", "리더", "관장", "대표이사", "이사장", "원장", "본부장", "실장",
             "센터장", "단장"), "leader"),
    Pattern("owns",
            (r"\b(?:owns|operates|runs|is\s+responsible\s+for|are\s+responsible\s+for|is\s+in\s+charge\s+of)\b",),
            (r"\b(?:is|are|was|were)\s+(?:owned|operated|run)\s+by\b",),
            ("담당", "맡", "운영"), "owner"),
    Pattern("located_in",
            (r"\b(?:is|are|was|were)?\s*(?:headquartered|located|based|situated|sits)\s+in\b",
             r"\bheadquarters\s+(?:is|are|was|were)\s+(?:located\s+)?in\b", r"\bhas\s+its\s+headquarters\s+in\b"),
            (),
            ("위치", "본사", "소재", "자리", "에 있", "에서 있"), "located"),
    Pattern("part_of",
            (r"\b(?:is|are|was|were)\s+(?:a\s+)?(?:part|component|module|subsidiary|division|unit)\s+of\b",
             r"\bpart\s+of\b"),
            (),
            ("일부", "자회사", "계열사", "하위", "산하"), "part"),
    Pattern("belongs_to",
            (r"\b(?:belongs?|belonged)\s+to\b", r"\b(?:is|was)\s+a\s+member\s+of\b", r"\bworks?\s+(?:at|for)\b",
             r"\b(?:is|was)\s+an?\s+(?:\w+\s+)?(?:professor|researcher|engineer|scientist|student|employee|"
             r"member|fellow)\s+(?:at|of|in)\b"),
            (),
            ("소속", "속한", "속하", "근무", "재직", "교수"), "member"),
    Pattern("uses",
            (r"\b(?:uses|used(?!\s+(?:\w+\s+)?by\b)|using|relies\s+on|is\s+built\s+on|is\s+based\s+on|builds\s+on|"
             r"adopts|adopted(?!\s+by\b)|employs|runs\s+on|powered\s+by)\b",),
            # "the dashboard used by the Marine Operations Team": the team uses it
            (r"\b(?:used|adopted|employed|relied\s+on)\s+(?:daily\s+|mainly\s+|only\s+)?by\b",),
            ("사용", "활용", "이용", "기반", "채택", "탑재", "도입", "쓴다", "쓰인", "쓰는"), "user"),
)

_KO_PARTICLE_RE = re.compile(
    r"^(?P<p>이었다|였다|입니다|이며|이고|이다|다(?=[\s.,]|$)|에\s*의해|에\s*의하여|에서는|에서|에게|에는|에|으로는|으로|로는|로|"
    r"은|는|이|가|을|를|의|와|과|도|께서)"
)
_SUBJECT = {"은", "는", "이", "가", "도", "께서"}
_OBJECT = {"을", "를"}
_PLACE = {"에", "에서", "에서는", "에는", "으로", "로", "으로는", "로는"}
_AGENT = {"에의해", "에의하여"}
_COPULA = {"이다", "입니다", "이며", "이고", "이었다", "였다", "다"}

_kiwi = None
_kiwi_lock = threading.Lock()


def _get_kiwi():
    """kiwipiepy, loaded once per process (about 1 s, plus about 3 s at the first tokenize): only
    Korean text needs it."""
    global _kiwi
    with _kiwi_lock:
        if _kiwi is None:
            from kiwipiepy import Kiwi

            _kiwi = Kiwi()
        return _kiwi


def warm_up() -> None:
    """Start loading kiwipiepy in a background thread (ingestion calls this before embedding)."""
    if _kiwi is None:
        # the first tokenize() loads the rest of the model (~3 s); do that in the background too
        threading.Thread(target=lambda: _get_kiwi().tokenize("준비"), name="kiwi-warm-up", daemon=True).start()


@dataclass
class Mention:
    start: int
    end: int
    name: str
    type: str
    particle: str = ""  # Korean particle right after the mention ("는", "를", "에서", ...) or ""


def _has_hangul(text: str) -> bool:
    return re.search(r"[\uac00-\ud7a3]", text) is not None


def _entity_type(name: str) -> str:
    lower = name.lower()
    if re.search(r"\d", name) and re.search(r"[-_.]", name) or re.search(r"[A-Za-z].*\d|\d.*[A-Za-z]", name):
        return "model"
    last = lower.split()[-1] if lower.split() else lower
    if last in _ORG_SUFFIXES_EN or any(name.endswith(s) for s in _ORG_SUFFIXES_KO):
        return "org"
    return "concept"


# "Meta acquired ...": a relation verb right after a sentence-initial word makes it a name
_TRIGGER_VERB_RE = re.compile(
    r"\s+(?:developed|created|built|designed|released|introduced|published|proposed|invented|develops|creates|"
    r"builds|founded|co-founded|established|acquired|bought|purchased|leads|heads|manages|owns|operates|uses|"
    r"relies|adopted|adopts|employs|belongs|joined|works|(?:is|was)\s+(?:headquartered|located|based|"
    r"developed|founded|acquired|owned|led|part|a\s+subsidiary))\b")


def _is_plain_capitalised(word: str) -> bool:
    """"Scores", "Everyone": capitalised only because a sentence starts with it (no digits, no inner capitals)."""
    return re.fullmatch(r"[A-Z][a-z]+", word) is not None


def _latin_mentions(sentence: str, known_names: frozenset[str] = frozenset()) -> list[Mention]:
    found: list[Mention] = []
    body_start = len(sentence) - len(re.sub(r"^[\s#>*+•·\-|]*(?:\d+[.)]\s*)?", "", sentence))
    english = not _has_hangul(sentence)
    for m in _CAP_SEQ_RE.finditer(sentence):
        text, start = m.group(0), m.start()
        words = text.split()
        # drop leading sentence starters ("The Apex model" -> "Apex")
        while words and (words[0].lower() in _SENTENCE_STARTERS or words[0] in _ACRONYM_STOP
                         or words[0] in ("of", "for", "de", "du", "la", "von", "van")):
            start += len(words[0]) + (len(text[len(words[0]):]) - len(text[len(words[0]):].lstrip()))
            text = text[len(words[0]):].lstrip()
            words = words[1:]
        # "Employees of Hanbit Research": a generic plural + "of" is not part of the name
        while len(words) > 2 and words[0].casefold() in _GENERIC_PLURALS_EN and words[1] == "of":
            for _ in range(2):
                start += len(words[0]) + (len(text[len(words[0]):]) - len(text[len(words[0]):].lstrip()))
                text = text[len(words[0]):].lstrip()
                words = words[1:]
        # "Executive Director of Cheongram Culture Foundation": a title + "of" is not part of the name
        if "of" in words[1:-1]:
            cut = words.index("of")
            if all(w.casefold() in _TITLE_WORDS for w in words[:cut]):
                for _ in range(cut + 1):
                    start += len(words[0]) + (len(text[len(words[0]):]) - len(text[len(words[0]):].lstrip()))
                    text = text[len(words[0]):].lstrip()
                    words = words[1:]
        if not words or text in _ACRONYM_STOP or all(w.casefold() in _TITLE_WORDS for w in words):
            continue
        # a lone capitalised word opening an English sentence is a name only if the text also
        # capitalises it mid-sentence ("Atlas is ..." with "The Atlas service" elsewhere)
        if english and start <= body_start and len(words) == 1 and _is_plain_capitalised(text) \
                and text not in known_names and not _TRIGGER_VERB_RE.match(sentence[start + len(text):]):
            continue
        found.append(Mention(start, start + len(text), text, _entity_type(text)))
    # "the Safety and Compliance Team": two capitalised parts joined by "and" / "&" that end in an organisation word
    caps = sorted(found, key=lambda x: x.start)
    for a, b in zip(caps, caps[1:]):
        if re.fullmatch(r"\s+(?:and|&)\s+", sentence[a.end:b.start]) and b.name.split()[-1].casefold() in \
                _ORG_SUFFIXES_EN and (len(a.name.split()) == 1 or a.name.split()[-1].casefold() not in _ORG_SUFFIXES_EN):
            name = sentence[a.start:b.end]
            found.append(Mention(a.start, b.end, name, _entity_type(name)))
    for m in _MODEL_RE.finditer(sentence):
        text = m.group(0).rstrip(".")
        if re.search(r"\d", text) or re.search(r"[A-Z]", text):
            found.append(Mention(m.start(), m.start() + len(text), text, _entity_type(text)))
    for m in _ACRONYM_RE.finditer(sentence):
        if m.group(0) in _ACRONYM_STOP:
            continue
        found.append(Mention(m.start(), m.end(), m.group(0), _entity_type(m.group(0))))
    return found


_KO_NOUN_TAGS = {"NNP"}
# language: words that make "X팀" a reference, not a name ("해당 팀", "우리팀", "각 부서")
_KO_NOT_A_NAME = re.compile(r"^(?:해당|우리|각|모든|전체|다른|같은|상위|하위|관련)")
# language: nouns that end the name of an organisational unit ("안전관리팀", "경영지원실")
_KO_ORG_WORDS = frozenset("팀 실 본부 센터 재단 협회 연구소 위원회 사업부 조합 분관 도서관 박물관 회사 그룹 학회".split())
_KO_JOIN_TAGS = {"NNP", "NNG", "SL", "SN", "SH", "SO", "XSN"}


def _korean_mentions(sentence: str) -> list[Mention]:
    if not _has_hangul(sentence):
        return []
    tokens = _get_kiwi().tokenize(sentence)
    found: list[Mention] = []
    run: list = []

    def flush() -> None:
        # a run is a name when kiwi saw a proper noun in it, or when it is a model-style name
        # ("노바-7": syllables, a hyphen and digits, all attached)
        model_like = any(t.tag == "SO" and t.form == "-" for t in run) and any(t.tag == "SN" for t in run) \
            and all(b.start == a.start + a.len for a, b in zip(run, run[1:]))
        # "안전관리팀", "청소년서비스팀": attached common nouns ending in an organisation word name a unit
        org_like = run and run[-1].form in _KO_ORG_WORDS and run[-1].tag == "NNG" \
            and all(b.start == a.start + a.len for a, b in zip(run, run[1:]))
        if not run or not (any(t.tag == "NNP" for t in run) or model_like or org_like):
            run.clear()
            return
        # trim trailing common nouns that are separated by a space and are not organisation suffixes
        while len(run) > 1 and run[-1].tag == "NNG" and run[-1].start > run[-2].start + run[-2].len \
                and run[-1].form not in _ORG_SUFFIXES_KO:
            run.pop()
        while run and run[-1].tag in ("SO",):
            run.pop()
        # "뒤 평가기": a common noun before a space does not belong to the name
        while len(run) > 1 and run[0].tag == "NNG" and run[1].start > run[0].start + run[0].len:
            run.pop(0)
        start, end = run[0].start, run[-1].start + run[-1].len
        # "업체 다온미디어가" read as "업체이다 + 온미디어": a name does not start inside a word after a verb ending
        word_start = start
        while word_start > 0 and re.match(r"[\uac00-\ud7a3]", sentence[word_start - 1]):
            word_start -= 1
        if word_start < start and (org_like or all(t.tag in ("VCP", "EF", "EC", "ETM") for t in tokens
                                                   if word_start <= t.start < start)):
            start = word_start  # a unit's name is the whole word ("한결과학재단", where kiwi read 한결 as an adverb)
        text = sentence[start:end].strip()
        if org_like and not any(t.tag == "NNP" for t in run) and (len(text) < 3 or _KO_NOT_A_NAME.match(text)):
            run.clear()
            return
        if 2 <= len(text) <= MAX_ENTITY_CHARS and _has_hangul(text):
            found.append(Mention(start, end, text, _entity_type(text)))
        run.clear()

    for tok in tokens:
        if tok.tag in _KO_JOIN_TAGS:
            if run:
                prev_end = run[-1].start + run[-1].len
                gap = sentence[prev_end:tok.start]
                attached = gap == ""
                # a space may separate two proper nouns, or a proper noun and an organisation suffix
                spaced_ok = gap == " " and (tok.tag == "NNP" or tok.form in _ORG_SUFFIXES_KO)
                if tok.tag in ("SO",) and tok.form not in ("-", "_", "."):
                    flush()
                    continue
                if attached or spaced_ok:
                    run.append(tok)
                    continue
                flush()
            if tok.tag in ("NNP", "NNG", "SL", "SN", "SH"):
                run.append(tok)
        else:
            flush()
    flush()
    return found


# "솔빛천문관(Solbit Planetarium)": the Latin name is capitalised words ("생성(RAG)" spells out a term, not a name)
_KO_BEFORE_ALIAS_RE = re.compile(r"(?<![\uac00-\ud7a3])([\uac00-\ud7a3]{2,12})\s*[(（]\s*[A-Z][a-z]+(?:[\s-][A-Z][a-z]+)*"
                                 r"\s*[)）]")


def _alias_head_mentions(sentence: str) -> list[Mention]:
    """"솔빛천문관(Solbit Planetarium)": a Hangul word written with a parenthesised Latin name is a name, whatever
    kiwi tagged it."""
    out = []
    for m in _KO_BEFORE_ALIAS_RE.finditer(sentence):
        name = m.group(1)
        if not is_generic(name):
            out.append(Mention(m.start(1), m.end(1), name, _entity_type(name)))
    return out


def _quoted_mentions(sentence: str) -> list[Mention]:
    """Quoted names; quoted phrases that read like a sentence or a formula are skipped."""
    out = []
    for m in _QUOTED_RE.finditer(sentence):
        for g in (1, 2, 3):
            term = (m.group(g) or "").strip()
            if not term or len(term.split()) > 4 or re.search(r"[→=<>?!。.,:\[\]{}()]|[가다요까]$", term) \
                    or term[0].isdigit() or not re.search(r"[A-Za-z\uac00-\ud7a3\u4e00-\u9fff]", term):
                continue
            if m.group(g):
                out.append(Mention(m.start(g), m.end(g), m.group(g).strip(), _entity_type(m.group(g))))
    return out


def _merge(mentions: list[Mention], sentence: str) -> list[Mention]:
    """Longest mention wins where spans overlap; particles recorded; ordered by position."""
    mentions = sorted(mentions, key=lambda m: (m.start, -(m.end - m.start)))
    kept: list[Mention] = []
    for m in mentions:
        if not m.name or len(m.name) > MAX_ENTITY_CHARS:
            continue
        if kept and m.start < kept[-1].end:
            if (m.end - m.start) > (kept[-1].end - kept[-1].start):
                kept[-1] = m
            continue
        kept.append(m)
    for m in kept:
        pm = _KO_PARTICLE_RE.match(sentence[m.end:])
        m.particle = re.sub(r"\s+", "", pm.group("p")) if pm else ""
    return kept


def mid_sentence_names(sentences: list[str]) -> frozenset[str]:
    """Single capitalised words used on their own inside sentences (not at their start): evidence
    that they are names ("The Atlas search service" makes "Atlas is ..." a name)."""
    names: set[str] = set()
    for sentence in sentences:
        heading = re.fullmatch(r"\s*#{1,6}\s+([A-Z][A-Za-z0-9&-]*)\s*", sentence)
        if heading:  # "## Beacon": a section titled by one capitalised word names a thing
            names.add(heading.group(1))
        for m in _CAP_SEQ_RE.finditer(sentence):
            before = sentence[: m.start()].rstrip(" \t#>*+•·-|")
            if " " not in m.group(0) and before and before[-1] not in ".!?:":
                names.add(m.group(0))
    return frozenset(names)


def _known_mentions(sentence: str, known_korean: frozenset[str]) -> list[Mention]:
    """Korean names found elsewhere in the chunk, found again here by string match: kiwi tags an
    unknown name as a proper noun in one sentence and as a common noun in the next."""
    out = []
    for name in known_korean:
        for m in re.finditer(re.escape(name), sentence):
            if m.start() == 0 or not re.match(r"[\uac00-\ud7a3A-Za-z0-9]", sentence[m.start() - 1]):
                out.append(Mention(m.start(), m.end(), name, _entity_type(name)))
    return out


# ---- Chinese names (language, not tuned on a corpus) ----------------------------------------------------------
# Han characters that end a name when reading back from its last character: function words, and determiners
# ("该组", "每个小组" name nothing)
_ZH_BOUNDARY = set("是的在由和与及为了将把被向对从于位使用等或并也都就让给每各该本这那此其个已")
_ZH_ORG_SUFFIXES = ("团队", "小组", "委员会", "基金会", "研究所", "研究院", "财团", "集团", "公司", "中心", "大学",
                    "学院", "银行", "医院", "协会", "图书馆", "博物馆", "组", "部", "室", "馆", "局", "处", "科", "团")
_ZH_GENERIC = frozenset("图书馆 博物馆 委员会 研究所 研究院 办公室 公司 中心 大学 学院 银行 医院 协会 团队 小组 "
                        "代表团 参观团 旅行团 工作组 这个组".split())
_ZH_TITLES = ("负责人", "主任", "经理", "组长", "部长", "队长", "船长", "馆长", "院长", "主管", "总监",
              "教授", "博士", "团长", "所长", "科长", "处长", "局长", "工程师", "研究员", "董事长", "总经理", "理事长")
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


def _zh_back(sentence: str, end: int, min_start: int = 0) -> int:
    """Where a Han name ending at ``end`` starts: read back to a boundary character, a non-Han character or a title."""
    start = end
    while start > min_start and re.match(rf"[{_HAN}]", sentence[start - 1]) and sentence[start - 1] not in _ZH_BOUNDARY:
        start -= 1
        if any(sentence[:start].endswith(t) for t in _ZH_TITLES):
            break
    return start


def _given_syllables(latin: str) -> int:
    """Syllables of a romanised given name ("Eunseo" 2, "Mei" 1, "Jeong-a" 2): vowel groups."""
    given = latin.split()[0]
    return max(1, len(re.findall(r"[aeiou]+", given.lower())))  # pinyin y / w begin a syllable


def _chinese_mentions(sentence: str) -> list[Mention]:
    if not re.search(rf"[{_HAN}]", sentence) or _has_hangul(sentence):
        return []
    found: list[Mention] = []
    for m in _ZH_ALIAS_RE.finditer(sentence):  # "陈立伟（Liwei Chen）", "青岚历史博物馆（Cheongram History Museum）"
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
    for suffix in _ZH_ORG_SUFFIXES:  # "船舶维修组", "保存处理室", "苏州图书馆"
        for m in re.finditer(re.escape(suffix), sentence):
            end = m.end()
            if end < len(sentence) and re.match(rf"[{_HAN}]", sentence[end]) and not (
                    sentence[end] in _ZH_BOUNDARY or any(sentence[end:].startswith(w) for w in _ZH_FOLLOWERS)):
                continue  # the suffix is inside a longer word
            start = _zh_back(sentence, m.start())
            name = sentence[start:end]
            if m.start() - start >= 2 and name not in _ZH_GENERIC:
                found.append(Mention(start, end, name, "org"))
    for m in re.finditer(r"[市省县]", sentence):  # "清州市", "韩国清州市" (the country is not part of the name)
        start = _zh_back(sentence, m.start())
        start += len(next((c for c in _ZH_COUNTRIES if sentence.startswith(c, start)), ""))
        if m.start() - start >= 1 and m.end() - start <= 6:
            found.append(Mention(start, m.end(), sentence[start:m.end()], "place"))
    for title in _ZH_TITLES:  # "主任周文静", "负责人朴恩瑞"
        for m in re.finditer(re.escape(title) + rf"([{_HAN}]{{2,3}})", sentence):
            name = m.group(1)
            if name[0] not in _ZH_SURNAMES:
                continue
            if len(name) == 3 and (name[2] in _ZH_BOUNDARY or name[2] in "负任"):
                name = name[:2]
            found.append(Mention(m.start(1), m.start(1) + len(name), name, "person"))
    return found


def find_mentions(sentence: str, known_names: frozenset[str] = frozenset(),
                  known_korean: frozenset[str] = frozenset()) -> list[Mention]:
    """Entity mentions in one sentence, in order, with the Korean particle that follows each.
    ``known_names``: capitalised words the surrounding text uses mid-sentence (see ``mid_sentence_names``);
    ``known_korean``: Korean names already recognised elsewhere in the text."""
    found = _latin_mentions(sentence, known_names) + _korean_mentions(sentence) + _quoted_mentions(sentence) \
        + _known_mentions(sentence, known_korean) + _chinese_mentions(sentence) + _alias_head_mentions(sentence)
    return _merge([m for m in found if not is_generic(m.name)], sentence)


# ---- relations -----------------------------------------------------------------
def _english_relation(sentence: str, mentions: list[Mention]) -> tuple[Mention, str, Mention] | None:
    for pattern in PATTERNS:
        for regex, reverse in [(r, False) for r in pattern.english] + [(r, True) for r in pattern.english_reversed]:
            for m in re.finditer(regex, sentence, flags=re.IGNORECASE):
                # within the trigger's clause: "A is responsible for the kiosks; the B readers …" links no B
                left = [x for x in mentions if x.end <= m.start() and ";" not in sentence[x.end:m.start()]]
                right = [x for x in mentions if x.start >= m.end() and ";" not in sentence[m.end():x.start]]
                if not left or not right:
                    continue
                subj, obj = left[0], right[0]
                if reverse:
                    subj, obj = obj, subj
                return subj, pattern.predicate, obj
    return None


def _korean_relation(sentence: str, mentions: list[Mention]) -> tuple[Mention, str, Mention] | None:
    for pattern in PATTERNS:
        trigger = next((t for t in pattern.korean if t in sentence), None)
        if trigger is None:
            continue
        # "X의 본사" / "X의 일부": the possessor is the subject for located_in, the whole for part_of
        subjects = [m for m in mentions if m.particle in _SUBJECT]
        objects = [m for m in mentions if m.particle in _OBJECT]
        places = [m for m in mentions if m.particle in _PLACE]
        agents = [m for m in mentions if m.particle in _AGENT]
        possessors = [m for m in mentions if m.particle == "의"]
        first, second = mentions[0], mentions[1]

        def other(than: Mention) -> Mention:
            rest = [m for m in mentions if m is not than]
            preferred = [m for m in rest if m.particle in _SUBJECT or m.particle == "의"]
            return (preferred or rest)[0]

        role = pattern.ko_subject_role
        if role == "made":  # (thing, developed_by / founded_by, maker)
            if objects:  # "B는 A를 개발했다"
                thing = objects[0]
                return thing, pattern.predicate, other(thing)
            idx = sentence.find(trigger)
            # "B에서 개발한": a place is the maker only right before the trigger
            makers = agents + [m for m in places if m.particle == "에서" and 0 <= idx - m.end <= 4]
            makers += [m for m in subjects if m.particle in ("이", "가")]
            topics = [m for m in mentions if m.particle in ("은", "는", "도")]
            if makers and topics and makers[0] is not topics[0]:  # "A는 B가 개발했다", "B가 개발한 A는"
                return topics[0], pattern.predicate, makers[0]
            if makers:
                thing = next((m for m in mentions if m is not makers[0]), None)
                if thing is not None:
                    return thing, pattern.predicate, makers[0]
            copula = [m for m in mentions if m.particle in _COPULA]
            if copula and copula[0] is not first:  # "A의 개발사는 B이다"
                return first, pattern.predicate, copula[0]
            idx = sentence.find(trigger)
            if topics and idx > topics[0].end:  # "RRF는 Gordon Cormack 연구진이 제안했다"
                between = [m for m in mentions if m.start >= topics[0].end and m.end <= idx and m.particle == ""]
                if between:
                    return topics[0], pattern.predicate, between[0]
            return None
        if role == "leader":  # (person, leads, group)
            if objects:  # "A는 B를 이끈다"
                return other(objects[0]), pattern.predicate, objects[0]
            copula = [m for m in mentions if m.particle in _COPULA]
            if possessors and copula:  # "B의 팀장은 A이다"
                return copula[0], pattern.predicate, possessors[0]
            if possessors and subjects and subjects[0] is not possessors[0]:  # "A는 B의 팀장이다"
                return subjects[0], pattern.predicate, possessors[0]
            topics = [m for m in mentions if m.particle in ("은", "는")]
            doers = [m for m in mentions if m.particle in ("이", "가")]
            if topics and doers and topics[0] is not doers[0]:  # "B는 A가 이끈다"
                return doers[0], pattern.predicate, topics[0]
            return None
        relative = _relative_clause(sentence, mentions, trigger)
        if relative is not None and role in ("owner", "user", "leader"):  # "A가 운영하는 B": (A, predicate, B)
            return relative[0], pattern.predicate, relative[1]
        if role == "owner":  # (team, owns, product)
            if objects:  # "A는 B를 담당한다"
                return other(objects[0]), pattern.predicate, objects[0]
            topics = [m for m in mentions if m.particle in ("은", "는")]
            doers = [m for m in mentions if m.particle in ("이", "가", "에서")]
            if topics and doers and topics[0] is not doers[0] \
                    and not _EMBEDDED_CLAUSE.search(sentence[doers[0].end:sentence.find(trigger)]):
                return doers[0], pattern.predicate, topics[0]  # "B는 A가 담당한다", not "B는 A가 쓰는 C를 맡는다"
            return None
        if role == "acquirer":  # (buyer, acquired, bought)
            if objects:
                return other(objects[0]), pattern.predicate, objects[0]
            if agents or places:  # "A는 B에 인수되었다"
                buyer = (agents or places)[0]
                return next(m for m in mentions if m is not buyer), pattern.predicate, buyer
            return None
        if role == "located":  # (thing, located_in, place)
            place = next((m for m in places if m is not first), None)
            if place is None:
                copula = [m for m in mentions if m.particle in _COPULA]
                place = copula[0] if copula and copula[0] is not first else None
            if place is None:
                return None
            thing = next((m for m in possessors + subjects if m is not place), first if first is not place else second)
            return thing, pattern.predicate, place
        if role == "part":  # (part, part_of, whole)
            whole = possessors[0] if possessors else None
            if whole is None:
                return None
            part = next((m for m in mentions if m is not whole), None)
            return (part, pattern.predicate, whole) if part else None
        if role == "member":  # (member, belongs_to, group)
            group = next((m for m in places + possessors if m is not first), None)
            if group is None:
                idx = sentence.find(trigger)
                before = [m for m in mentions if m.end <= idx and m is not first]
                group = before[-1] if before else None
            return (first, pattern.predicate, group) if group else None
        if role == "user":  # (user, uses, used)
            if objects:
                return other(objects[0]), pattern.predicate, objects[0]
            if trigger == "기반" and possessors:  # "B 기반의 A", "A는 B를 기반으로"
                return first, pattern.predicate, second
            return None
    return None


# language: a sentence that opens with a pronoun for the thing just described ("It", "This system", "이 시스템은",
# "该系统", "它")
_PRONOUN_SUBJECT_RE = re.compile(
    r"^[\s#>*+•·\-|]*(?P<p>(?:It|This|The)\s+(?:system|tool|service|app|application|platform|product|database|"
    r"program|programme|software)\b|It\b(?!'s\s)|이\s*(?:시스템|도구|서비스|앱|플랫폼|제품|데이터베이스|프로그램)(?=은|는|이|가)|"
    r"(?:该|这个|这一)(?:系统|工具|服务|应用|平台|产品|数据库|程序)|它)")
# How many sentences a topic (the name that opened a sentence) stands for a dropped or pronoun subject. Language
# habit, not tuned: a short paragraph.
TOPIC_SPAN = 3
# "관장은 최미래다", "대표이사는 배정아이며": a head-of-unit title as the topic (its owner is left out)
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


# a verb in its adnominal form then a noun ("함께 쓰는 시스템을"): the subject before it belongs to that embedded clause
_EMBEDDED_CLAUSE = re.compile(r"[가-힣](?:는|한|던|된)\s+\S")
_KO_ADNOMINAL_AFTER_TRIGGER = re.compile(r"^[가-힣]{0,2}?(?:하는|한|던|는|된|되는|ㄴ)\s")


def _relative_clause(sentence: str, mentions: list[Mention], trigger: str) -> tuple[Mention, Mention] | None:
    """"A가 운영하는 B", "A이 사용하는 "B"": the subject-marked mention before the trigger and the mention right after the
    trigger's adnominal form (the noun the clause describes); None when the sentence is not built so."""
    idx = sentence.find(trigger)
    m = _KO_ADNOMINAL_AFTER_TRIGGER.match(sentence[idx + len(trigger):])
    if m is None:
        return None
    doer = next((x for x in reversed(mentions) if x.end <= idx and x.particle in ("이", "가", "에서")), None)
    head_at = idx + len(trigger) + m.end()
    head = next((x for x in mentions if x.start >= idx and re.fullmatch(r"[\s\"“「『']*",
                                                                         sentence[head_at:x.start])), None)
    if doer is None or head is None or doer is head:
        return None
    return doer, head


# Chinese relation frames (language): (regex between/around the two names, predicate, which side is the subject)
_ZH_DEVELOP = r"(?:开发|研发|建立|建造|打造|制作|设计|推出|创建|搭建)"
_ZH_MANAGE = r"(?:负责|领导|管理|带领|主管|运营|维护)"


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
    (A belongs_to B), "A使用/采用B" (A uses B). Only names next to the frame's words count."""
    def gap(a: Mention, b: Mention) -> str:
        return sentence[a.end:b.start]

    def is_person(m: Mention) -> bool:
        return m.type == "person" or _PERSON_RE.match(m.name) is not None

    between = gap(a, b)
    after = sentence[b.end:b.end + 8]
    if re.fullmatch(r"\s*由\s*[\u4e00-\u9fff]{0,4}?", between):  # "由轮机长陈立伟负责": a title may stand between
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
    if re.fullmatch(r"\s*位于\s*(?:[\u4e00-\u9fff]{1,3}?)?", between) and "位于" in between:
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
    if is_person(b) and a.type == "org" and re.fullmatch(r"\s*的\s*", between):
        return b, "belongs_to", a  # "旅客服务组的林梅"
    if re.fullmatch(r"\s*(?:使用|采用|用|依靠|基于)了?\s*", between):
        return a, "uses", b
    return None


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


ALIAS_PREDICATE = "also_known_as"
_ALIAS_OPEN_RE = re.compile(r"\s*[(（]\s*")
_ALIAS_CLOSE_RE = re.compile(r"\s*[)）]")


def _script(name: str) -> str:
    """"hangul", "han" or "latin": which writing a name is in (its first letter of the three that occurs)."""
    if _has_hangul(name):
        return "hangul"
    return "han" if re.search(r"[\u4e00-\u9fff]", name) else "latin"


def _alias_pairs(sentence: str, mentions: list[Mention]) -> list[tuple[Mention, Mention, int]]:
    """"한빛랩스(Hanbit Labs)", "Hanbit Labs (한빛랩스)": a name followed by a parenthesised name in the other
    script (Hangul / no Hangul) names the same thing. Gives (name, parenthesised name, end of the ")")."""
    pairs = []
    for a, b in zip(mentions, mentions[1:]):
        close = _ALIAS_CLOSE_RE.match(sentence, b.end)
        if close and _ALIAS_OPEN_RE.fullmatch(sentence[a.end:b.start]) and _script(a.name) != _script(b.name):
            pairs.append((a, b, close.end()))
    return pairs


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


def extract(text: str, doc_id: str, chunk_id: str, source_file: str = "") -> Extraction:
    """Entities and relations of one chunk; every relation carries its sentence as evidence.

    Aliases ("한빛랩스(Hanbit Labs)") are one entity under the name the chunk mentions first; every relation
    of the chunk uses that name, and one ``also_known_as`` relation (canonical -> alias) records the alias,
    since the graph store holds no alias list."""
    entities: dict[str, Entity] = {}
    relations: list[Relation] = []
    seen: set[tuple[str, str, str]] = set()
    sentences = split_sentences(text)
    known_names = mid_sentence_names(sentences)
    first_pass = [find_mentions(sentence, known_names) for sentence in sentences]
    known_korean = frozenset(m.name for ms in first_pass for m in ms if _has_hangul(m.name) and len(m.name) >= 2)
    per_sentence = [(sentence, find_mentions(sentence, known_names, known_korean) if known_korean else first)
                    for sentence, first in zip(sentences, first_pass)]
    canonical = _canonical_names(per_sentence)
    for sentence, raw in per_sentence:
        for a, b, _ in _alias_pairs(sentence, raw):
            for alias in (a, b):
                key = entity_key(alias.name)
                name = canonical.get(key, alias.name)
                ident = (entity_key(name), ALIAS_PREDICATE, key)
                if key in canonical and ident not in seen:
                    seen.add(ident)
                    relations.append(Relation(source=name, predicate=ALIAS_PREDICATE, target=alias.name,
                                              evidence=sentence.strip(), doc_id=doc_id, chunk_id=chunk_id,
                                              source_file=source_file))
    topic: Mention | None = None  # the entity the text is about: the subject that opened a recent sentence
    topic_age = 0
    for sentence, raw in per_sentence:
        mentions = _apply_aliases(sentence, raw, canonical)
        pronoun = _PRONOUN_SUBJECT_RE.match(sentence)
        topic_age += 1
        if topic_age > TOPIC_SPAN:
            topic = None
        if pronoun and topic is not None and not any(m.start < pronoun.end() for m in mentions):
            # "TideBook is … . It was built by the Digital Services Team": the pronoun stands for the topic
            particle = "는" if _has_hangul(pronoun.group(0)) else ""
            mentions = [Mention(pronoun.start("p"), pronoun.end("p"), topic.name, topic.type, particle)] + mentions
        elif topic is not None and _zero_subject(sentence, mentions, topic):
            # Korean drops a subject the text is about: "남빛해운은 … . 1998년 A가 설립했으며" (A founded 남빛해운),
            # "- 청람중앙도서관: … 관장은 최미래다" (the head of 청람중앙도서관)
            particle = "의" if _KO_TITLE_TOPIC_RE.match(sentence) else "는"
            mentions = [Mention(0, 0, topic.name, topic.type, particle)] + mentions
        else:
            body = len(sentence) - len(sentence.lstrip(" \t#>*+•·-|"))
            opener = next((m for m in mentions if m.start <= body + 2), None)
            if opener is not None:
                topic, topic_age = opener, 0
        distinct: list[Mention] = []
        for m in mentions:
            key = entity_key(m.name)
            if key not in entities:
                entities[key] = Entity(name=m.name, type=m.type)
            if all(entity_key(d.name) != key for d in distinct):
                distinct.append(m)
        if len(distinct) < 2:
            continue
        found = _relation_for(sentence, distinct)
        if found:
            triples = [(found[0].name, found[1], found[2].name)]
            if not _has_hangul(sentence) and re.search(r"[\u4e00-\u9fff]", sentence):
                triples += [(x.name, p, y.name) for x, p, y in _chinese_relations(sentence, distinct)[1:]]
            elif not _has_hangul(sentence):
                # "It was developed by B, a software company based in C": a second clause about the last name
                rest = [m for m in distinct if m.start >= max(found[0].start, found[2].start)]
                more = _english_relation(sentence, rest) if len(rest) >= 2 else None
                if more and more[1] != found[1] and entity_key(more[0].name) != entity_key(more[2].name):
                    triples.append((more[0].name, more[1], more[2].name))
            for role_index in (0, 2):  # "A과 B는 C가 만든 모델이다": A shares B's role
                partner = found[role_index]
                for m in distinct:
                    between = [x for x in distinct if m.end <= x.start and x.end <= partner.start and x.particle]
                    if m.particle in ("와", "과") and m.end <= partner.start and m is not found[2 - role_index] \
                            and not between and sentence[m.end + 1 : partner.start].strip().count(" ") <= 3:
                        triple = [found[0].name, found[1], found[2].name]
                        triple[role_index] = m.name
                        triples.append((triple[0], triple[1], triple[2]))
        elif _associated_pair(sentence, distinct):
            left, right = _associated_pair(sentence, distinct)
            triples = [(left.name, "related_to", right.name)]
        else:  # names that merely occur in one sentence ("A and B were both mentioned …") are not a relation
            continue
        for src, pred, tgt in triples:
            ident = (entity_key(src), pred, entity_key(tgt))
            if ident in seen:
                continue
            seen.add(ident)
            relations.append(Relation(source=src, predicate=pred, target=tgt, evidence=sentence.strip(),
                                      doc_id=doc_id, chunk_id=chunk_id, source_file=source_file))
    _type_from_relations(entities, relations)
    return Extraction(entities=list(entities.values()), relations=relations)


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


# the role an entity plays in a relation says what it is: (predicate, side) -> type
_ROLE_TYPES = {("leads", 0): "person", ("founded_by", 2): "person", ("located_in", 2): "place",
               ("belongs_to", 2): "org", ("owns", 0): "org", ("acquired", 0): "org", ("acquired", 2): "org",
               ("developed_by", 0): "product", ("owns", 2): "product", ("leads", 2): "org"}
_PERSON_RE = re.compile(r"^[A-Z][a-z]+(?:[- ][A-Z][a-z]+){1,2}$")


def _type_from_relations(entities: dict[str, Entity], relations: list[Relation]) -> None:
    """Give "concept" entities a type from their role: who leads is a person, where is a place, ..."""
    for r in relations:
        for side, name in ((0, r.source), (2, r.target)):
            entity = entities.get(entity_key(name))
            if entity is None or entity.type != "concept":
                continue
            role = _ROLE_TYPES.get((r.predicate, side))
            if role is None and r.predicate in ("belongs_to", "developed_by") and _PERSON_RE.match(name) \
                    and not name.split()[-1].lower() in _ORG_SUFFIXES_EN:
                role = "person"  # "Minji Park belongs to ...", "... was developed by Stephen Robertson"
            if role:
                entity.type = role


def written_as_name(question: str, name: str) -> bool:
    """Whether the question writes ``name`` as a name, not as an ordinary word that happens to share its letters.

    A name with a digit, an inner capital, or several words ("TideBook", "BM25", "Search Platform Team") counts in any
    case. A single plain word counts only as the documents write it: "HOW", "VEHICLE" (an all-caps heading word) only
    in capitals, "Museum" / "Atlas" only capitalised; "the museum" or "how do I …" name nothing. Hangul and Han names
    always count."""
    if not re.search(r"[A-Za-z]", name) or re.search(r"[\u3131-\ud7a3\u4e00-\u9fff]", name):
        return True
    words = name.split()
    if len(words) >= 2 and not name.isupper() or re.search(r"\d", name) or re.search(r"[a-z][A-Z]", name):
        return True
    text = unicodedata.normalize("NFKC", question)
    if name.isupper():
        return re.search(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", text) is not None
    # a capitalised plain word: the question capitalises it too (the later letters in any case)
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(name[0])}(?i:{re.escape(name[1:])})(?![A-Za-z0-9])", text) is not None


# ---- Korean names in Latin letters ---------------------------------------------------------------------------------
# language: Korean words that end a unit's or place's name; "서림분관" is "서림" + 분관 (branch)
KO_NAME_SUFFIXES = tuple(sorted(set(_KO_ORG_WORDS) | {"분관", "지점", "지사", "본관", "센터", "시", "군", "구", "도", "섬",
                                                     "항", "역", "호"}, key=len, reverse=True))


def romanized_stem(name: str) -> str:
    """The romanised name part of a Hangul name without its unit word ("서림분관" → "seorim"); "" when the name is not
    Hangul or the part left is a single syllable."""
    if not re.fullmatch(r"[\uac00-\ud7a3]+", name):
        return ""
    stem = next((name[: -len(sfx)] for sfx in KO_NAME_SUFFIXES if name.endswith(sfx) and len(name) > len(sfx)), name)
    return romanize(stem) if len(stem) >= 2 else ""
