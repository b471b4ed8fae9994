"""Names in Latin letters: capitalised word sequences ("Apex Labs", "Bank of Korea"), acronyms ("RAG", "NVIDIA") and
model names with digits or dashes ("bge-reranker-v2-m3", "GPT-4o"); ``mid_sentence_names`` tells a sentence-initial
word that is a name from one that is not."""
from __future__ import annotations

import re

from rag.extract.kinds import _ORG_SUFFIXES_EN, _entity_type
from rag.extract.mention import Mention
from rag.extract.names import _GENERIC_PLURALS_EN, _has_hangul


_CAP_WORD = r"[A-Z][A-Za-z0-9&]*(?:[-.][A-Za-z0-9]+)*"
_CAP_SEQ_RE = re.compile(rf"\b{_CAP_WORD}(?:\s+(?:(?:of|for|de|du|la|von|van)\s+)?{_CAP_WORD})*")
_MODEL_RE = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)+(?![\w-])")
_ACRONYM_RE = re.compile(r"\b[A-Z][A-Z0-9&]{1,}[a-z]?\b")

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
    ms MS AM PM USA US UK EU PhD MSc BSc MBA""".split()
)

# language: honorifics before a name ("Dr. Hyunwoo Bae"): not part of the name, and alone they name nobody
_HONORIFICS = frozenset("Dr Prof Mr Mrs Ms Mx Rev Capt Sir Dame".split())
# language: job titles; "Executive Director of X" names X, and a title alone names nobody
_TITLE_WORDS = frozenset("""director directors head chief executive managing deputy general senior vice president chair
    chairman chairwoman chairperson manager lead leader founder co-founder officer principal dean ceo cto cfo coo
    secretary treasurer coordinator supervisor captain commander""".split())

# language: roles written before a person's name ("Developer Dohee Lee"); not part of the name
_ROLE_WORDS = frozenset("""developer engineer researcher technician analyst designer planner nurse specialist
    coordinator student intern scientist postdoc""".split())

# "Meta acquired ...": a relation verb right after a sentence-initial word makes it a name
_TRIGGER_VERB_RE = re.compile(
    r"\s+(?:developed|created|built|designed|released|introduced|published|proposed|invented|develops|creates|"
    r"builds|founded|co-founded|established|acquired|bought|purchased|leads|heads|manages|owns|operates|uses|"
    r"relies|adopted|adopts|employs|belongs|joined|works|(?:is|was)\s+(?:headquartered|located|based|"
    r"developed|founded|acquired|owned|led|part|a\s+subsidiary)|has\s+its\s+(?:only\s+|main\s+|registered\s+)?(?:head\s+)?offices?)\b")


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
                         or words[0].rstrip(".") in _HONORIFICS
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
        # "Executive Director of Songak Arts Foundation": a title + "of" is not part of the name
        if "of" in words[1:-1]:
            cut = words.index("of")
            if all(w.casefold() in _TITLE_WORDS for w in words[:cut]):
                for _ in range(cut + 1):
                    start += len(words[0]) + (len(text[len(words[0]):]) - len(text[len(words[0]):].lstrip()))
                    text = text[len(words[0]):].lstrip()
                    words = words[1:]
        # "Developer Dohee Lee", "Technician Yunha Nam": a role word before a person's name is not part of it
        while len(words) > 2 and words[0].casefold() in _ROLE_WORDS:
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
    # "the Quality and Training Team": two capitalised parts joined by "and" / "&" that end in an organisation word
    caps = sorted(found, key=lambda x: x.start)
    for a, b in zip(caps, caps[1:]):
        # … and "Food & Beverage", "Safety & Compliance": "&" joins the parts of one name
        if re.fullmatch(r"\s+&\s+", sentence[a.end:b.start]) or \
                re.fullmatch(r"\s+(?:and|&)\s+", sentence[a.end:b.start]) and b.name.split()[-1].casefold() in \
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


def mid_sentence_names(sentences: list[str]) -> frozenset[str]:
    """Single capitalised words used on their own inside sentences (not at their start): evidence
    that they are names ("The Atlas search service" makes "Atlas is ..." a name)."""
    names: set[str] = set()
    for sentence in sentences:
        heading = re.fullmatch(r"\s*#{1,6}\s+([A-Z][A-Za-z0-9&-]*)\s*(?:(?:—|–| - )\s*.*)?", sentence)
        if heading:  # "## Beacon", "## Daybreak — delivery routes": a section titled by one capitalised word names
            # a thing
            names.add(heading.group(1))
        for m in _CAP_SEQ_RE.finditer(sentence):
            before = sentence[: m.start()].rstrip(" \t#>*+•·-|")
            if " " not in m.group(0) and before and before[-1] not in ".!?:":
                names.add(m.group(0))
    return frozenset(names)
