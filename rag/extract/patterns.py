"""Relation triggers shared by the English and Korean rules: one ``Pattern`` per predicate."""
from __future__ import annotations

from dataclasses import dataclass


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
             r"introduced|published|proposed|invented|written)(?:\s+(?:in-house|internally|jointly|originally|mainly|"
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
             # "is the head of", "is the managing director at", "is the Chief Executive and head veterinarian of"
             # (no "of / to / the" among the words before the title: "the daughter of the director of" leads nothing;
             # no word after it but a joined second title: "the lead engineer at" leads nothing)
             r"\b(?:is|was)\s+(?:the|its)\s+(?:(?!(?:of|to|for|with|the|and)\b)[A-Za-z-]+\s+){0,2}(?:head|lead|leader|"
             r"director|chair|chairperson|president|manager|chief|executive)"
             r"(?:\s+(?:and|&)\s+[A-Za-z-]+(?:\s+[A-Za-z-]+)?)?\s+(?:of|at)\b"),
            # "X is led by Y", and a directory's "X (다른 표기): led by Y" / "X, headed by Y"
            (r"(?:\b(?:is|are|was|were)\s+|[:,(—–-]\s*)(?:led|headed|managed|directed)\s+by\b",),
            ("팀장", "이끈", "이끌", "이끄", "책임자", "리더", "관장", "대표이사", "이사장", "원장", "본부장", "실장",
             "센터장", "단장"), "leader"),
    Pattern("owns",
            (r"\b(?:owns|operates|runs|is\s+responsible\s+for|are\s+responsible\s+for|is\s+in\s+charge\s+of)\b",),
            (r"\b(?:is|are|was|were)\s+(?:owned|operated|run)\s+by\b",),
            ("담당", "맡", "운영"), "owner"),
    Pattern("located_in",
            (r"\b(?:is|are|was|were)?\s*(?:headquartered|located|based|situated|sits)\s+in\b",
             r"\bheadquarters\s+(?:is|are|was|were)\s+(?:located\s+)?in\b", r"\bhas\s+its\s+headquarters\s+in\b",
             # "X has its head office in …", "has its only office in …", "X's head office is in …"
             r"\bhas\s+its\s+(?:only\s+|main\s+|registered\s+)?(?:head\s+)?offices?\s+in\b",
             # "… has its head office inside the Maepo brewery in Danyang", "… on the third floor of the X Theatre in …"
             r"\bhas\s+its\s+(?:only\s+|main\s+|registered\s+)?head\s+office\s+(?:inside|on|at|above)\s"
             r"[^.;,]{0,60}?\bin\b",
             r"\bhead\s+office\s+(?:is|was)\s+in\b"),
            (),
            ("위치", "본사", "소재", "자리", "에 있", "에서 있"), "located"),
    Pattern("part_of",
            (r"\b(?:is|are|was|were)\s+(?:a\s+)?(?:part|component|module|subsidiary|division|unit)\s+of\b",
             r"\bpart\s+of\b"),
            (),
            ("일부", "자회사", "계열사", "하위", "산하"), "part"),
    Pattern("belongs_to",
            (r"\b(?:belongs?|belonged)\s+to\b", r"\b(?:is|was)\s+a\s+member\s+of\b", r"\bworks?\s+(?:at|for)\b",
             # "Dohyun Kim, a member of her team", "Soyun Namgung, a developer on her team"
             r"\b(?:a|an)\s+(?:[a-z-]+\s+){0,2}(?:member|developer|engineer|researcher|technician|analyst|designer|"
             r"planner|nurse|specialist|coordinator)\s+(?:of|on)\b",
             r"\b(?:is|was)\s+an?\s+(?:\w+\s+)?(?:professor|researcher|engineer|scientist|student|employee|"
             r"member|fellow)\s+(?:at|of|in)\b"),
            (),
            ("소속", "속한", "속하", "근무", "재직", "교수"), "member"),
    Pattern("uses",
            (r"\b(?:uses|used(?!\s+(?:\w+\s+)?by\b)|using|relies\s+on|is\s+built\s+on|is\s+based\s+on|builds\s+on|"
             r"adopts|adopted(?!\s+by\b)|employs|runs\s+on|powered\s+by)\b",),
            # "the dashboard used by the Field Operations Team": the team uses it
            (r"\b(?:used|adopted|employed|relied\s+on)\s+(?:daily\s+|mainly\s+|only\s+)?by\b",),
            ("사용", "활용", "이용", "기반", "채택", "탑재", "도입", "쓴다", "쓰인", "쓰는"), "user"),
)
