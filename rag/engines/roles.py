"""The decision engine as a bundle of role components, so one run can mix engines per role.

Roles and the method each one answers:

| role | method | who asks |
|---|---|---|
| router | ``classify`` | agentic |
| grader | ``grade`` | agentic, tool_agent, self_rag, crag |
| evaluator | ``evaluate`` | agentic |
| rewriter | ``rewrite`` | agentic, tool_agent, self_rag, crag |
| generator | ``generate`` | every variant |
| extractor | ``extract`` | ingestion |
| agent | ``decide_tool`` — call the retriever tool or answer (seed 001) | tool_agent |
| hallucination | ``grade_hallucination`` — is every answer sentence supported by the documents? | self_rag |
| answer_grader | ``grade_answer`` — does the answer address the question? | self_rag |
| complexity | ``classify_complexity`` — simple / moderate / complex (seed 003) | adaptive |
| refiner | ``refine`` — keep only the relevant sentences of a document (CRAG strips) | crag |

``RAG_ROLES="grader=llm,router=offline"`` picks an engine per role; roles not named use ``RAG_ENGINE``.
``RoleEngine`` is itself a ``DecisionEngine`` (the existing methods keep working for existing callers) and adds
the critic methods. ``as_roles(engine)`` wraps any engine so a variant can ask for every role.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rag.types import (Answer, Decision, DecisionEngine, Extraction, Grade, ModelCall, Quality, RagError, Retrieved,
                       Rewrite)

ROLE_METHODS: dict[str, str] = {
    "router": "classify",
    "grader": "grade",
    "evaluator": "evaluate",
    "rewriter": "rewrite",
    "generator": "generate",
    "extractor": "extract",
    "agent": "decide_tool",
    "hallucination": "grade_hallucination",
    "answer_grader": "grade_answer",
    "complexity": "classify_complexity",
    "refiner": "refine",
}
ROLES: tuple[str, ...] = tuple(ROLE_METHODS)
ROLE_ALIASES = {"context": "evaluator", "context_evaluator": "evaluator", "classifier": "complexity",
                "hallucination_grader": "hallucination", "answer": "answer_grader", "strips": "refiner"}


@dataclass
class Verdict:
    """A critic's judgement: a label, a 0..1 score, the reason in one line, the model calls, and details
    (e.g. the unsupported sentences, the kept strips)."""

    label: str
    score: float
    reason: str
    calls: list[ModelCall] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)


def parse_roles(text: str | None) -> dict[str, str]:
    """``"grader=llm, router=offline"`` -> ``{"grader": "llm", "router": "offline"}``; a plain message on a bad item."""
    out: dict[str, str] = {}
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        role, sep, engine = item.partition("=")
        role, engine = ROLE_ALIASES.get(role.strip().lower(), role.strip().lower()), engine.strip()
        if not sep or not engine:
            raise RagError(f"RAG_ROLES item {item!r} must look like role=engine (e.g. grader=llm)")
        if role not in ROLE_METHODS:
            raise RagError(f"RAG_ROLES: unknown role {role!r}; roles are {', '.join(ROLES)}")
        out[role] = engine
    return out


class RoleEngine:
    """One engine per role; every ``DecisionEngine`` method and every critic goes to its role's engine."""

    def __init__(self, parts: dict[str, Any], default: Any) -> None:
        self.default = default
        self.parts = {role: parts.get(role, default) for role in ROLES}
        names = sorted({getattr(e, "name", type(e).__name__) for e in self.parts.values()})
        self.name = names[0] if len(names) == 1 else "+".join(names)
        # batched grading (issue 11) follows the grader: an engine that grades all documents in one call keeps
        # doing so when it is mixed with others; one without it is graded document by document as before
        self.checks_other_languages = bool(getattr(self.parts["grader"], "checks_other_languages", False))
        grade_all = getattr(self.parts["grader"], "grade_all", None)
        if grade_all is not None:
            self.grade_all = grade_all

    def engine_for(self, role: str) -> Any:
        return self.parts[role]

    def _method(self, role: str):
        engine = self.parts[role]
        method = getattr(engine, ROLE_METHODS[role], None)
        if method is None:
            raise RagError(f"the {getattr(engine, 'name', type(engine).__name__)!r} engine has no {role} "
                           f"({ROLE_METHODS[role]}); pick one that has it, e.g. RAG_ROLES={role}=offline")
        return method

    def describe(self) -> dict[str, Any]:
        base = dict(self.default.describe()) if hasattr(self.default, "describe") else {}
        mixed = {role: getattr(e, "name", type(e).__name__) for role, e in self.parts.items()}
        if any(e is not self.default for e in self.parts.values()):
            base["roles"] = mixed
            base["engine"] = self.name
            others = {getattr(e, "name", "?"): e for e in self.parts.values() if e is not self.default}
            base["role_engines"] = {n: dict(e.describe()) for n, e in others.items() if hasattr(e, "describe")}
        return base

    # ---- the DecisionEngine protocol ----------------------------------------------------------------------------
    def classify(self, question: str, known_entities: list[str]) -> Decision:
        return self._method("router")(question, known_entities)

    def grade(self, question: str, doc: Retrieved) -> Grade:
        return self._method("grader")(question, doc)

    def evaluate(self, question: str, docs: list[Retrieved], grades: list[Grade]) -> Quality:
        return self._method("evaluator")(question, docs, grades)

    def rewrite(self, question: str, query: str, docs: list[Retrieved], grades: list[Grade]) -> Rewrite:
        return self._method("rewriter")(question, query, docs, grades)

    def generate(self, question: str, docs: list[Retrieved], grades: list[Grade] | None, mode: str) -> Answer:
        return self._method("generator")(question, docs, grades, mode)

    def extract(self, text: str, doc_id: str, chunk_id: str, source_file: str) -> Extraction:
        return self._method("extractor")(text, doc_id, chunk_id, source_file)

    # ---- critics --------------------------------------------------------------------------------------------------
    def decide_tool(self, question: str, query: str) -> Decision:
        """strategy "retrieve" (signals["query"]: what to search) or "answer" (no retrieval needed)."""
        return self._method("agent")(question, query)

    def grade_hallucination(self, question: str, answer: str, docs: list[Retrieved]) -> Verdict:
        """label "supported" | "not_supported"; details["unsupported"]: the sentences without support."""
        return self._method("hallucination")(question, answer, docs)

    def grade_answer(self, question: str, answer: str, abstained: bool) -> Verdict:
        """label "useful" | "not_useful"."""
        return self._method("answer_grader")(question, answer, abstained)

    def classify_complexity(self, question: str, known_entities: list[str]) -> Decision:
        """strategy "simple" | "moderate" | "complex"."""
        return self._method("complexity")(question, known_entities)

    def refine(self, question: str, doc: Retrieved) -> Verdict:
        """details["kept"] / details["dropped"]: the document's sentences kept as strips and dropped."""
        return self._method("refiner")(question, doc)


def as_roles(engine: DecisionEngine | RoleEngine) -> RoleEngine:
    """The engine as a role bundle (itself when it is one): every role goes to this engine."""
    return engine if isinstance(engine, RoleEngine) else RoleEngine({}, engine)
