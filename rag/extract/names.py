"""Words about names: generic words that name nothing (``is_generic``), which script a name is written in
(``_script``), whether a question writes a word as a name (``written_as_name``), and the romanised name part of a
Hangul unit name (``romanized_stem``)."""
from __future__ import annotations

import re
import unicodedata

from rag.romanize import romanize  # Revised Romanization (one implementation, also the vector tool's name channel)


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


def _has_hangul(text: str) -> bool:
    return re.search(r"[\uac00-\ud7a3]", text) is not None


def _script(name: str) -> str:
    """"hangul", "han" or "latin": which writing a name is in (its first letter of the three that occurs)."""
    if _has_hangul(name):
        return "hangul"
    return "han" if re.search(r"[\u4e00-\u9fff]", name) else "latin"


def written_as_name(question: str, name: str) -> bool:
    """Whether the question writes ``name`` as a name, not as an ordinary word that happens to share its letters.

    A name with a digit, an inner capital, or several words ("ParcelHub", "BM25", "Search Platform Team") counts in any
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
# language: nouns that end the name of an organisational unit ("품질관리팀", "경영지원실")
_KO_ORG_WORDS = frozenset("팀 실 본부 센터 재단 협회 연구소 위원회 사업부 조합 분관 도서관 박물관 회사 그룹 학회".split())

# language: Korean words that end a unit's or place's name; "가람분관" is "가람" + 분관 (branch)
KO_NAME_SUFFIXES = tuple(sorted(set(_KO_ORG_WORDS) | {"분관", "지점", "지사", "본관", "센터", "시", "군", "구", "도", "섬",
                                                     "항", "역", "호"}, key=len, reverse=True))


def romanized_stem(name: str) -> str:
    """The romanised name part of a Hangul name without its unit word ("가람분관" → "garam"); "" when the name is not
    Hangul or the part left is a single syllable."""
    if not re.fullmatch(r"[\uac00-\ud7a3]+", name):
        return ""
    stem = next((name[: -len(sfx)] for sfx in KO_NAME_SUFFIXES if name.endswith(sfx) and len(name) > len(sfx)), name)
    return romanize(stem) if len(stem) >= 2 else ""
