"""The llm engine's critics of the judging-RAG family (issue 10), a part of ``LLMEngine``.

Each one is one structured call through ``LLMEngine._call`` (recorded prompt, raw output, tokens; lenient parsing).
Unusable output never raises: a safe default that states its reason — decide_tool → retrieve, complexity →
complex (the checked path), hallucination / answer grader → "unchecked" (accepted, and said so), refine → keep
every sentence. A failed request raises as every other llm call does (the node records it).
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from rag.engines import prompts
from rag.textutil import split_sentences
from rag.types import Decision, Retrieved


class ToolDecisionOutput(BaseModel):
    """Call the retriever tool or answer directly."""

    call_tool: bool
    query: str = Field(description="the search query when call_tool is true, else empty")
    reason: str = Field(description="one short line")


class ComplexityOutput(BaseModel):
    """How much retrieval the question needs."""

    complexity: Literal["simple", "moderate", "complex"]
    reason: str = Field(description="one short line")


class HallucinationOutput(BaseModel):
    """Whether the answer is grounded in the documents."""

    grounded: bool
    unsupported_sentences: list[str] = Field(description="answer sentences the documents do not support, verbatim")
    reason: str = Field(description="one short line")


class AnswerGradeOutput(BaseModel):
    """Whether the answer resolves the question."""

    resolves: bool
    reason: str = Field(description="one short line")


class RefineOutput(BaseModel):
    """The numbers of the relevant sentences."""

    relevant_sentences: list[int]
    reason: str = Field(description="one short line")


class LLMCritics:
    """decide_tool, classify_complexity, grade_hallucination, grade_answer, refine — with a chat model."""

    def _grader_model(self) -> str:
        return getattr(self.settings, "grader_model", "") or self.settings.router_model

    def decide_tool(self, question: str, query: str) -> Decision:
        from rag.variants.tool_agent import TOOL_DESCRIPTION, TOOL_NAME

        messages = prompts.tool_decision_messages(question, query, TOOL_NAME, TOOL_DESCRIPTION)
        parsed, call = self._call("decide_tool", self.settings.router_model, messages, ToolDecisionOutput)
        if parsed is None:
            return Decision("retrieve", f"agent output unusable ({call.error}) → safe default: call the tool",
                            [call], signals={"query": query, "fallback": True})
        if not parsed.call_tool:
            return Decision("answer", parsed.reason.strip() or "the model answers without the tool", [call],
                            signals={"query": query})
        return Decision("retrieve", parsed.reason.strip() or "the model calls the tool", [call],
                        signals={"query": parsed.query.strip() or query})

    def classify_complexity(self, question: str, known_entities: list[str]) -> Decision:
        parsed, call = self._call("complexity", self.settings.router_model, prompts.complexity_messages(question),
                                  ComplexityOutput)
        if parsed is None:
            return Decision("complex", f"classifier output unusable ({call.error}) → safe default: complex (the "
                                       "checked path)", [call], signals={"fallback": True})
        return Decision(parsed.complexity, parsed.reason.strip() or parsed.complexity, [call])

    def grade_hallucination(self, question: str, answer: str, docs: list[Retrieved]) -> Any:
        from rag.engines.roles import Verdict

        if not docs:
            return Verdict("supported", 1.0, "no documents: nothing to check the answer against (no model call)",
                           details={"unsupported": [], "checked": False})
        messages = prompts.hallucination_messages(question, answer, docs)
        parsed, call = self._call("hallucination", self._grader_model(), messages, HallucinationOutput)
        if parsed is None:
            return Verdict("unchecked", 0.5, f"hallucination grader output unusable ({call.error}) → accepted "
                                             "unchecked", [call], details={"unsupported": []})
        unsupported = [s.strip() for s in parsed.unsupported_sentences if s.strip()]
        if parsed.grounded and not unsupported:
            return Verdict("supported", 1.0, parsed.reason.strip() or "grounded", [call],
                           details={"unsupported": []})
        return Verdict("not_supported", 0.0, parsed.reason.strip() or f"{len(unsupported)} unsupported sentence(s)",
                       [call], details={"unsupported": unsupported})

    def grade_answer(self, question: str, answer: str, abstained: bool) -> Any:
        from rag.engines.roles import Verdict

        parsed, call = self._call("answer_grade", self._grader_model(),
                                  prompts.answer_grade_messages(question, answer), AnswerGradeOutput)
        if parsed is None:
            return Verdict("unchecked", 0.5, f"answer grader output unusable ({call.error}) → accepted unchecked",
                           [call])
        return Verdict("useful" if parsed.resolves else "not_useful", 1.0 if parsed.resolves else 0.0,
                       parsed.reason.strip() or ("resolves" if parsed.resolves else "does not resolve"), [call])

    def refine(self, question: str, doc: Retrieved) -> Any:
        from rag.engines.roles import Verdict

        sentences = split_sentences(doc.text) or [doc.text]
        if doc.tool == "graph" or len(sentences) == 1:
            return Verdict("kept_whole", 1.0, "one fact or one sentence: kept whole (no model call)",
                           details={"kept": [doc.text], "dropped": []})
        parsed, call = self._call("refine", self._grader_model(),
                                  prompts.refine_messages(question, sentences, doc.source), RefineOutput)
        if parsed is None:
            return Verdict("kept_whole", 1.0, f"refiner output unusable ({call.error}) → kept every sentence", [call],
                           details={"kept": sentences, "dropped": []})
        wanted = {n for n in parsed.relevant_sentences if 1 <= n <= len(sentences)}
        kept = [s for i, s in enumerate(sentences, 1) if i in wanted]
        if not kept:
            return Verdict("kept_whole", 1.0, "the model kept no sentence → kept the document whole: "
                           + (parsed.reason.strip() or "-"), [call], details={"kept": sentences, "dropped": []})
        dropped = [s for i, s in enumerate(sentences, 1) if i not in wanted]
        return Verdict("refined", round(len(kept) / len(sentences), 3),
                       f"kept {len(kept)} of {len(sentences)} sentences: {parsed.reason.strip()}", [call],
                       details={"kept": kept, "dropped": dropped})
