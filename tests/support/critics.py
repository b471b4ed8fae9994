"""A scripted engine with the critics of the judging-RAG family, for loop-bound tests of every variant.

    engine = ScriptedCritics(grade=["incorrect", "correct"], tool=[True, False], supported=[False, True],
                             useful=True, complexity="complex")

Each critic is scripted like ``ScriptedEngine``'s decisions (a value, a list consumed in order whose last value
repeats, or a function); every call is recorded in ``engine.calls``.
"""
from __future__ import annotations

from typing import Any

from rag.engines.roles import Verdict
from rag.types import Decision, Retrieved
from tests.support.scripted import Script, ScriptedEngine


class ScriptedCritics(ScriptedEngine):
    def __init__(self, tool: Script = True, complexity: Script = "complex", supported: Script = True,
                 useful: Script = True, refine: Script = None, **decisions: Any) -> None:
        super().__init__(**decisions)
        self.scripts.update({"decide_tool": tool, "classify_complexity": complexity,
                             "grade_hallucination": supported, "grade_answer": useful, "refine": refine})

    def decide_tool(self, question: str, query: str) -> Decision:
        value = self._next("decide_tool", question=question, query=query)
        if isinstance(value, Decision):
            return value
        return Decision("retrieve" if value else "answer", f"scripted: tool={bool(value)}",
                        [self._call("decide_tool", str(value))], signals={"query": query})

    def classify_complexity(self, question: str, known_entities: list[str]) -> Decision:
        value = self._next("classify_complexity", question=question)
        return value if isinstance(value, Decision) else Decision(str(value), f"scripted: {value}",
                                                                  [self._call("complexity", str(value))])

    def grade_hallucination(self, question: str, answer: str, docs: list[Retrieved]) -> Verdict:
        value = self._next("grade_hallucination", question=question, answer=answer, docs=docs)
        if isinstance(value, Verdict):
            return value
        unsupported = [] if value else ["an invented sentence."]
        return Verdict("supported" if value else "not_supported", 1.0 if value else 0.0, f"scripted: {value}",
                       [self._call("hallucination", str(value))], details={"unsupported": unsupported})

    def grade_answer(self, question: str, answer: str, abstained: bool) -> Verdict:
        value = self._next("grade_answer", question=question, answer=answer, abstained=abstained)
        if isinstance(value, Verdict):
            return value
        return Verdict("useful" if value else "not_useful", 1.0 if value else 0.0, f"scripted: {value}",
                       [self._call("answer_grade", str(value))])

    def refine(self, question: str, doc: Retrieved) -> Verdict:
        value = self._next("refine", question=question, doc=doc)
        if isinstance(value, Verdict):
            return value
        first = doc.text.split(". ")[0]
        return Verdict("refined", 0.5, "scripted: first sentence", [self._call("refine", first)],
                       details={"kept": [first], "dropped": doc.text.split(". ")[1:]})
