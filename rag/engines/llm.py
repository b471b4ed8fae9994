"""The ``llm`` decision engine: ``langchain_openai.ChatOpenAI`` with structured outputs.

Works with OpenAI and any OpenAI-compatible server (``OPENAI_BASE_URL``: Ollama, vLLM, LM Studio).
``settings.router_model`` judges (classify, grade, evaluate, rewrite, extract); ``settings.generator_model``
writes answers. Every call is recorded as a ``ModelCall`` (prompt, raw output, tokens, duration, error).

Malformed output (the model answered, but not in the schema) is recorded and a safe default is used, with the
reason saying so (classify → vector, grade → ambiguous 0.5, quality → 0.5 as in seed 000, rewrite → the previous
query, generate → abstain, extract → the offline rule-based extraction).

A failed request (no connection, timeout, HTTP error) is no measurement: it raises ``ModelCallFailed`` carrying
the recorded call, so the step fails and the run stops with that error (extraction alone falls back to the
offline rules, recorded in the call's error). Each request waits at most ``settings.llm_timeout_s``
(``RAG_LLM_TIMEOUT``, 20 s) and is tried ``1 + settings.llm_retries`` times (``RAG_LLM_RETRIES``, 1) on a
connection error, timeout, 429 or 5xx; never past the run's deadline (``rag.deadline``, ``RAG_RUN_DEADLINE``).

Structured output method: ``json_schema`` (``response_format``) by default — supported by OpenAI, vLLM, Ollama
(≥ 0.5) and LM Studio; set ``RAG_LLM_STRUCTURED=function_calling`` for servers that only do tool calls, or
``json_mode``. Replies in Markdown code fences or with text around the JSON are still read.
"""
from __future__ import annotations

import contextvars
import json
import math
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

from pydantic import BaseModel, Field, ValidationError

from rag import deadline as run_deadline
from rag.config import Settings, redact_text, redact_url
from rag.engines import prompts
from rag.engines.llm_critics import LLMCritics
from rag.engines.offline import FRAMES, OfflineEngine, language_of
from rag.engines.tiers import MemoQueryEmbedder, offline_is_confident, offline_route
from rag.types import (Answer, Citation, Decision, Entity, Extraction, Grade, GradeLabel, ModelCall, Quality,
                       QuestionKind, RagError, Relation, Retrieved, Rewrite, Strategy)

STRUCTURED_METHODS = ("json_schema", "function_calling", "json_mode")
RETRY_STATUSES = (408, 409, 429)  # and every 5xx: worth another try; other 4xx are answers, not glitches
PARALLEL_GRADERS = 8  # concurrent grading requests in RAG_LLM_GRADING=parallel
RETRY_BACKOFF_S = 0.5  # before the second try; doubled after each further one


class ModelCallFailed(RagError):
    """A model request failed (connection, timeout, HTTP error): nothing was measured. ``model_calls`` holds the
    recorded call, so the failed step shows it."""

    def __init__(self, message: str, call: ModelCall) -> None:
        super().__init__(message)
        self.model_calls = [call]


# ---- output schemas (names are what the server sees) ----------------------------------------------------
class ClassifyOutput(BaseModel):
    """Retrieval strategy for the question."""

    strategy: Strategy
    reason: str = Field(description="one short sentence")
    # seed 002's question kind (issue 12); a reply without it reads as a lookup
    kind: QuestionKind = Field(default="lookup", description="kind of question")
    targets: list[str] = Field(default_factory=list, description="what a comparison compares; [] otherwise")


class GradeOutput(BaseModel):
    """CRAG grade of one document."""

    label: GradeLabel
    score: float = Field(description="confidence 0.0-1.0 that the document answers the question")
    reason: str = Field(description="one short line")


class GradedDocument(BaseModel):
    """The grade of one numbered document inside a batched grading reply."""

    id: str = Field(description="the document's number n, e.g. \"1\"")
    label: GradeLabel
    score: float = Field(description="confidence 0.0-1.0 that the document answers the question")
    reason: str = Field(description="one short line")


class GradeBatchOutput(BaseModel):
    """CRAG grades of every numbered document, one per id."""

    grades: list[GradedDocument]


class QualityOutput(BaseModel):
    """How well the context covers the question."""

    score: float = Field(description="0.0-1.0")
    reason: str = Field(description="one short line")


class RewriteOutput(BaseModel):
    """A better search query."""

    query: str
    reason: str = Field(description="one short line")


class AnswerOutput(BaseModel):
    """Answer: conclusion + evidence + citations + uncertainty."""

    conclusion: str
    evidence: list[str] = Field(description="supporting facts, each with its citation like [1]")
    citations: list[int] = Field(description="numbers of the context documents used")
    uncertainty: str = Field(description="what the documents do not confirm")
    insufficient_evidence: bool = Field(description="true when the context does not answer the question")


class PartialOutput(BaseModel):
    """What the context confirms and what it does not."""

    found: list[str] = Field(description="confirmed facts, each with its citation like [2]")
    not_found: list[str] = Field(description="parts of the question the context does not answer")
    citations: list[int]
    nothing_relevant: bool


class DirectOutput(BaseModel):
    """Answer without documents."""

    answer: str
    unsure: bool


class ExtractedEntity(BaseModel):
    name: str
    type: str


class ExtractedRelation(BaseModel):
    source: str
    predicate: str
    target: str
    evidence: str


class ExtractOutput(BaseModel):
    """Entities and relations of a text."""

    entities: list[ExtractedEntity]
    relations: list[ExtractedRelation]


# ---- helpers ----------------------------------------------------------------------------------------------
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


def _lenient_json(text: str) -> Any:
    """JSON out of a reply that wrapped it in a code fence or text; raises ValueError when there is none."""
    text = (text or "").strip()
    m = _FENCE.search(text)
    if m:
        text = m.group(1).strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        try:
            return json.loads(text[start : end + 1])
        except json.JSONDecodeError:
            pass
    raise ValueError("no JSON object in the reply")


def strict_json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema in the form OpenAI's strict structured outputs accept: every property required,
    no extra properties, no defaults. Passed to ``with_structured_output`` as a dict so that a malformed reply
    comes back as ``parsing_error`` with the raw message (a Pydantic class makes the OpenAI client raise instead)."""

    def fix(node: Any) -> Any:
        if isinstance(node, dict):
            node = {k: fix(v) for k, v in node.items() if k != "default"}
            if node.get("type") == "object" and "properties" in node:
                node["required"] = list(node["properties"])
                node["additionalProperties"] = False
            return node
        if isinstance(node, list):
            return [fix(v) for v in node]
        return node

    return fix(model.model_json_schema())


def _in_unit_range(value: float, what: str) -> float:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{what} {value!r} is outside 0..1")
    return float(value)


class LLMEngine(LLMCritics):
    """Judging and answering with chat models through ``langchain-openai``."""

    name = "llm"
    # a chat model reads a document in another language than the question: its grades there are checked judgements
    # (the agent may answer from a search of the other languages; the offline engine only matches them by meaning)
    checks_other_languages = True

    def __init__(self, settings: Settings, structured_method: str | None = None,
                 max_retries: int | None = None) -> None:
        if not (settings.openai_api_key or settings.openai_base_url):
            raise RagError("The llm engine needs OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (an OpenAI-compatible "
                           "server such as Ollama or vLLM); or use RAG_ENGINE=offline.")
        method = structured_method or os.environ.get("RAG_LLM_STRUCTURED") or "json_schema"
        if method not in STRUCTURED_METHODS:
            raise RagError(f"RAG_LLM_STRUCTURED must be one of {', '.join(STRUCTURED_METHODS)}, got {method!r}")
        self.settings = settings
        self.structured_method = method
        self.max_retries = settings.llm_retries if max_retries is None else max_retries  # extra tries
        self._clients: dict[tuple[str, float], Any] = {}
        self._offline: OfflineEngine | None = None

    # ---- plumbing -----------------------------------------------------------------------------------
    def _client(self, model: str, timeout: float) -> Any:
        """A client per (model, timeout); retries are ours (``_call``), so each try gets the time left."""
        if (model, timeout) not in self._clients:
            from langchain_openai import ChatOpenAI

            self._clients[(model, timeout)] = ChatOpenAI(
                model=model,
                api_key=self.settings.openai_api_key or "not-needed",  # local servers accept any key
                base_url=self.settings.openai_base_url,
                temperature=0,
                timeout=timeout,
                max_retries=0,
                stream_usage=True,  # a streamed reply (rag.streaming) still reports its tokens
            )
        return self._clients[(model, timeout)]

    def _scrub(self, text: str) -> str:
        """Remove the API key (and anything that looks like one) and credentials inside URLs from text bound for
        the trace."""
        key = self.settings.openai_api_key
        if key:
            text = text.replace(key, "[redacted]")
        return redact_text(re.sub(r"\b(sk|key|api)[-_][A-Za-z0-9*_\-]{6,}", "[redacted]", text))

    @property
    def _server(self) -> str:
        return redact_url(self.settings.openai_base_url) or "https://api.openai.com/v1"

    def _request_error(self, exc: Exception, timeout: float) -> tuple[str, bool]:
        """(plain words for a failed request, whether another try may help)."""
        import openai

        if isinstance(exc, openai.APITimeoutError):
            return f"the model server at {self._server} did not answer within {timeout:g} s (RAG_LLM_TIMEOUT)", True
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            why = f"{type(cause).__name__}: {cause}" if cause is not None and str(cause) else str(exc)
            return (f"could not reach the model server at {self._server} ({why}); is it running? "
                    "(OPENAI_BASE_URL)"), True
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            return (f"the model server at {self._server} answered HTTP {status}: {exc.message}",
                    status in RETRY_STATUSES or status >= 500)
        return f"{type(exc).__name__}: {exc}", False

    def _invoke(self, call: ModelCall, model: str, schema: type[BaseModel], lc_messages: list[Any]) -> Any:
        """The request with its retries; returns the structured-output dict or raises (``ModelCallFailed``,
        ``DeadlineExceeded``; an unexpected exception propagates as the bug it is, with the call attached)."""
        import openai

        deadline = run_deadline.current()
        tries = 1 + max(0, self.max_retries)
        failures: list[str] = []
        started = time.perf_counter()
        for attempt in range(1, tries + 1):
            timeout = float(self.settings.llm_timeout_s)
            if deadline is not None:
                left = deadline.remaining()
                if left <= 0:
                    error = deadline.exceeded(f"a '{call.purpose}' model call")
                    call.error = self._scrub("; ".join([*failures, f"not sent: {error}"]))[:2000]
                    error.model_calls = [call]  # type: ignore[attr-defined]
                    raise error
                timeout = min(timeout, math.ceil(left * 2) / 2)  # half seconds: a few cached clients at most
            try:
                runnable = self._client(model, timeout).with_structured_output(
                    strict_json_schema(schema), method=self.structured_method, include_raw=True,
                    strict=True if self.structured_method != "json_mode" else None)
            except ImportError as exc:
                call.error = self._scrub(f"client setup failed: {type(exc).__name__}: {exc}")[:2000]
                raise ModelCallFailed(call.error, call) from exc
            try:
                out = runnable.invoke(lc_messages)
                call.duration_ms = (time.perf_counter() - started) * 1000.0
                return out
            except openai.OpenAIError as exc:
                call.duration_ms = (time.perf_counter() - started) * 1000.0
                message, transient = self._request_error(exc, timeout)
                failures.append(f"try {attempt}: {message}" if tries > 1 else message)
                if deadline is not None and deadline.passed():
                    error = deadline.exceeded(f"a '{call.purpose}' model call")
                    call.error = self._scrub("request failed: " + "; ".join([*failures, str(error)]))[:2000]
                    error.model_calls = [call]  # type: ignore[attr-defined]
                    raise error from exc
                if not transient or attempt == tries:
                    tried = f" after {attempt} tries" if attempt > 1 else ""
                    call.error = self._scrub(f"request failed{tried}: " + "; ".join(failures))[:2000]
                    raise ModelCallFailed(call.error, call) from exc
                pause = RETRY_BACKOFF_S * 2 ** (attempt - 1)
                time.sleep(min(pause, max(0.0, deadline.remaining())) if deadline is not None else pause)
            except Exception as exc:  # a bug (ours or a library's): not a failed request, but keep the call
                call.duration_ms = (time.perf_counter() - started) * 1000.0
                call.error = self._scrub(f"unexpected error: {type(exc).__name__}: {exc}")[:2000]
                exc.model_calls = [call]  # type: ignore[attr-defined]
                raise
        raise AssertionError("unreachable: the last try returns or raises")

    def _call(self, purpose: str, model: str, messages: list[dict[str, str]],
              schema: type[BaseModel]) -> tuple[BaseModel | None, ModelCall]:
        """One structured call; returns (parsed or None, the recorded call with ``error`` when the output was
        unusable). A failed request raises ``ModelCallFailed`` (or ``DeadlineExceeded``): nothing was measured."""
        from langchain_core.messages import HumanMessage, SystemMessage

        lc_messages = [SystemMessage(m["content"]) if m["role"] == "system" else HumanMessage(m["content"])
                       for m in messages]
        call = ModelCall(model=model, purpose=purpose, prompt=[dict(m) for m in messages], raw_output="")
        out = self._invoke(call, model, schema, lc_messages)
        raw = out.get("raw")
        call.raw_output = self._scrub(self._raw_text(raw))
        usage = getattr(raw, "usage_metadata", None) or {}
        call.prompt_tokens = int(usage.get("input_tokens", 0) or 0)
        call.completion_tokens = int(usage.get("output_tokens", 0) or 0)
        candidates = []
        if out.get("parsed") is not None and out.get("parsing_error") is None:
            candidates.append(out["parsed"])
        error: Exception | None = out.get("parsing_error")
        try:  # a fenced or chatty reply still carries usable JSON
            candidates.append(_lenient_json(call.raw_output))
        except ValueError as exc:
            error = error or exc
        for candidate in candidates:
            try:
                return schema.model_validate(candidate), call
            except ValidationError as exc:
                error = exc
        call.error = self._scrub(f"malformed output: {type(error).__name__}: {error}")[:2000]
        return None, call

    @staticmethod
    def _raw_text(raw: Any) -> str:
        if raw is None:
            return ""
        tool_calls = getattr(raw, "tool_calls", None) or []
        if tool_calls:
            return json.dumps(tool_calls[0].get("args", {}), ensure_ascii=False)
        invalid = getattr(raw, "invalid_tool_calls", None) or []
        if invalid:
            return str(invalid[0].get("args") or "")
        content = getattr(raw, "content", "")
        if isinstance(content, list):
            content = "".join(part.get("text", "") if isinstance(part, dict) else str(part) for part in content)
        return str(content or "")

    @property
    def offline(self) -> OfflineEngine:
        if self._offline is None:
            # the offline tier (routing, quality from grades): query vectors remembered across questions
            self._offline = OfflineEngine(self.settings, embedder=MemoQueryEmbedder(self.settings))
        return self._offline

    # ---- describe -----------------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        return {
            "engine": "llm",
            "router_model": self.settings.router_model,
            "generator_model": self.settings.generator_model,
            "grader_model": self.grader_model,
            "grading": self.settings.llm_grading,
            "routing": self.settings.llm_routing,
            "quality": self.settings.llm_quality,
            "base_url": self._server,
            "structured_output": self.structured_method,
            "temperature": 0,
            "timeout_s": self.settings.llm_timeout_s,
            "retries": self.max_retries,
            "run_deadline_s": self.settings.run_deadline_s or None,
            # only for a reply that is not in the schema; a failed request fails the step instead
            "safe_defaults": {"classify": "vector", "grade": "ambiguous 0.5", "quality": 0.5,
                              "rewrite": "previous query", "generate": "abstain", "extract": "offline rules",
                              "grade (batched)": "documents without a usable verdict graded one by one"},
        }

    # ---- judging ------------------------------------------------------------------------------------
    @property
    def grader_model(self) -> str:
        return self.settings.grader_model or self.settings.router_model

    def classify(self, question: str, known_entities: list[str]) -> Decision:
        """Tiered (``RAG_LLM_ROUTING=tiered``): the offline router's decision stands when it is confident
        (``rag.engines.tiers``), without a model call; otherwise the router model decides. ``signals["tier"]``
        says which tier decided and ``signals["tier_reason"]`` why."""
        tier: dict[str, Any] = {"tier": "model", "tier_reason": "RAG_LLM_ROUTING=model: the model always routes"}
        shown = known_entities
        if self.settings.llm_routing == "tiered":
            offline = offline_route(self.offline, question, known_entities)
            confident, why = offline_is_confident(question, offline)
            if confident:
                return Decision(offline.strategy, f"offline tier: {offline.reason} ({why}; no model call)", [],
                                signals={**offline.signals, "tier": "offline", "tier_reason": why},
                                kind=getattr(offline, "kind", ""))
            tier = {"tier": "model", "tier_reason": why, "offline_suggestion": offline.strategy}
            # the prompt's rule is about entities the question names: list those, not the whole graph
            shown = list(offline.signals.get("entities") or [])
        messages = prompts.classify_messages(question, shown)
        parsed, call = self._call("classify", self.settings.router_model, messages, ClassifyOutput)
        if parsed is None:
            return Decision("vector", f"model output unusable ({call.error}) → safe default: vector", [call],
                            signals={"fallback": True, **tier})
        return Decision(parsed.strategy, parsed.reason.strip() or f"model chose {parsed.strategy}", [call],
                        signals={"model": self.settings.router_model, **tier, "targets": list(parsed.targets),
                                 "kind_reason": f"{parsed.kind}: the router model's kind"}, kind=parsed.kind)

    def grade_all(self, question: str, docs: list[Retrieved]) -> tuple[list[Grade], dict[str, Any]]:
        """Grades of every document, in order, as ``settings.llm_grading`` says: ``batch`` (one structured call;
        a document without a usable verdict in the reply is graded on its own, recorded), ``parallel`` (one call
        per document, concurrently) or ``per_doc`` (one call per document, in turn). Returns (grades, what the
        grading did: mode, the batched call, fallback ids and why) for the step."""
        mode = self.settings.llm_grading
        info: dict[str, Any] = {"mode": mode, "calls": [], "fallback_ids": [], "fallback_reason": ""}
        if not docs:
            return [], info
        if mode == "per_doc":
            return [self.grade(question, doc) for doc in docs], info
        if mode == "parallel":
            with ThreadPoolExecutor(max_workers=min(PARALLEL_GRADERS, len(docs)),
                                    thread_name_prefix="grade") as pool:  # each task keeps the run's deadline
                futures = [pool.submit(contextvars.copy_context().run, self.grade, question, doc) for doc in docs]
                return [f.result() for f in futures], info
        messages = prompts.grade_batch_messages(question, docs)
        parsed, call = self._call("grade", self.grader_model, messages, GradeBatchOutput)
        info["calls"] = [call]
        verdicts, problems = self._batch_verdicts(parsed, call, len(docs))
        grades: list[Grade] = []
        for n, doc in enumerate(docs, 1):
            if n in verdicts:
                grades.append(verdicts[n])
                continue
            why = problems.get(n, "no verdict for it in the reply")
            single = self.grade(question, doc)
            single.reason = f"{single.reason} (graded on its own: the batched reply had {why})"
            grades.append(single)
            info["fallback_ids"].append(doc.id)
        if info["fallback_ids"]:
            missing = [n for n in range(1, len(docs) + 1) if n not in verdicts]
            info["fallback_reason"] = (f"the batched reply had no usable verdict for document(s) "
                                       f"{', '.join(map(str, missing))} → graded those one by one")
            if call.error is None:
                call.error = f"incomplete output: {info['fallback_reason']}"
        return grades, info

    def _batch_verdicts(self, parsed: BaseModel | None, call: ModelCall,
                        n_docs: int) -> tuple[dict[int, Grade], dict[int, str]]:
        """{document number: grade} from a batched reply; items are read one by one, so one bad item (a wrong
        label, a score outside 0..1, an unknown or repeated id) costs only its own document."""
        if parsed is not None:
            items: list[Any] = [item.model_dump() for item in parsed.grades]  # type: ignore[attr-defined]
        else:
            try:
                data = _lenient_json(call.raw_output)
            except ValueError:
                data = None
            items = data.get("grades") if isinstance(data, dict) and isinstance(data.get("grades"), list) else []
        verdicts: dict[int, Grade] = {}
        problems: dict[int, str] = {}
        for item in items:
            try:
                graded = GradedDocument.model_validate(item)
                n = int(str(graded.id).strip().lstrip("#[").rstrip("]"))
                score = _in_unit_range(graded.score, "score")
            except (ValidationError, ValueError, TypeError) as exc:
                number = str(item.get("id", "")).strip() if isinstance(item, dict) else ""
                if number.isdigit():
                    problems[int(number)] = f"an unusable verdict ({type(exc).__name__})"
                continue
            if 1 <= n <= n_docs and n not in verdicts:
                verdicts[n] = Grade(graded.label, round(score, 3), graded.reason.strip() or graded.label)
        return verdicts, problems

    def grade(self, question: str, doc: Retrieved) -> Grade:
        messages = prompts.grade_messages(question, doc)
        parsed, call = self._call("grade", self.grader_model, messages, GradeOutput)
        if parsed is not None:
            try:
                score = _in_unit_range(parsed.score, "score")
                return Grade(parsed.label, round(score, 3), parsed.reason.strip() or parsed.label, [call])
            except ValueError as exc:
                call.error = f"malformed output: {exc}"
        return Grade("ambiguous", 0.5, f"grader output unusable ({call.error}) → safe default: ambiguous 0.5",
                     [call])

    def evaluate(self, question: str, docs: list[Retrieved], grades: list[Grade]) -> Quality:
        """``RAG_LLM_QUALITY=grades`` (default): computed from the model's grades with the offline engine's
        formula, no model call (arithmetic is code's job); ``model``: the seed-000 rubric asked of the model."""
        if not docs:
            return Quality(0.0, "no documents retrieved → quality 0.00 (no model call)")
        if self.settings.llm_quality == "grades":
            computed = self.offline.evaluate(question, docs, grades)
            return Quality(computed.score, f"computed from the grades, no model call: {computed.reason}")
        messages = prompts.quality_messages(question, docs, grades)
        parsed, call = self._call("evaluate", self.settings.router_model, messages, QualityOutput)
        if parsed is not None:
            try:
                score = _in_unit_range(parsed.score, "score")
                return Quality(round(score, 3), parsed.reason.strip() or f"model score {score:.2f}", [call])
            except ValueError as exc:
                call.error = f"malformed output: {exc}"
        return Quality(0.5, f"quality output unusable ({call.error}) → neutral 0.5 (seed 000)", [call])

    def rewrite(self, question: str, query: str, docs: list[Retrieved], grades: list[Grade]) -> Rewrite:
        strategy = docs[0].tool if docs else "vector"
        messages = prompts.rewrite_messages(question, query, strategy, docs, grades)
        parsed, call = self._call("rewrite", self.settings.router_model, messages, RewriteOutput)
        if parsed is not None and parsed.query.strip():
            return Rewrite(parsed.query.strip(), parsed.reason.strip() or "model rewrite", [call])
        if parsed is not None:
            call.error = "malformed output: empty query"
        return Rewrite(query, f"rewrite output unusable ({call.error}) → kept the previous query", [call])

    # ---- answering ----------------------------------------------------------------------------------
    def generate(self, question: str, docs: list[Retrieved], grades: list[Grade] | None, mode: str) -> Answer:
        lang = language_of(question)
        frame = FRAMES[lang]
        model = self.settings.generator_model
        if mode == "direct":
            messages = prompts.generate_messages(question, "", "direct")
            parsed, call = self._call("generate", model, messages, DirectOutput)
            if parsed is None or not parsed.answer.strip():
                return Answer(self._failed(lang), [], True, f"generator output unusable ({call.error}) → abstain",
                              [call], context="", prompt=messages)
            return Answer(parsed.answer.strip(), [], bool(parsed.unsure),
                          "direct answer from the model" + (" (model unsure)" if parsed.unsure else ""), [call],
                          context="", prompt=messages)

        if mode == "naive":  # the pipeline baseline: no grading, answer from whatever came back
            pool = list(docs[: self.settings.top_k])
        else:
            labels = [grades[i].label if grades and i < len(grades) and grades[i] else None
                      for i in range(len(docs))]
            pool = [d for d, lab in zip(docs, labels) if lab == "correct"] + \
                   [d for d, lab in zip(docs, labels) if lab == "ambiguous"]
            if not pool:
                text = f"{frame['abstain']} {frame['abstain_hint']}"
                return Answer(text, [], True, f"no document graded correct or ambiguous ({len(docs)} graded) → "
                              "abstain without a model call", [], context="", prompt=[])
        context = prompts.context_block(pool)
        messages = prompts.generate_messages(question, context, mode)
        if mode == "partial":
            parsed, call = self._call("generate", model, messages, PartialOutput)
            if parsed is None:
                return Answer(self._failed(lang), [], True, f"generator output unusable ({call.error}) → abstain",
                              [call], context=context, prompt=messages)
            cited = self._citations(pool, parsed.citations, " ".join(parsed.found))
            lines = [f"{frame['found']}:"] + [f"- {x}" for x in parsed.found] + \
                    [f"{frame['not_found']}: " + ("; ".join(parsed.not_found) or "-")]
            nothing = parsed.nothing_relevant or not parsed.found
            text = frame["abstain"] + "\n" + "\n".join(lines[-1:]) if nothing else "\n".join(lines)
            return Answer(text, [] if nothing else cited, nothing,
                          "partial answer: " + ("nothing relevant found" if nothing else
                                                f"{len(parsed.found)} found, {len(parsed.not_found)} not found"),
                          [call], context=context, prompt=messages)

        parsed, call = self._call("generate", model, messages, AnswerOutput)
        if parsed is None or not parsed.conclusion.strip():
            return Answer(self._failed(lang), [], mode != "naive",
                          f"generator output unusable ({call.error}) → " + ("empty naive answer" if mode == "naive"
                                                                           else "abstain"),
                          [call], context=context, prompt=messages)
        cited = self._citations(pool, parsed.citations, " ".join([parsed.conclusion, *parsed.evidence]))
        lines = [f"{frame['conclusion']}: {parsed.conclusion.strip()}"]
        if parsed.evidence:
            lines += [f"{frame['evidence']}:"] + [f"- {e.strip()}" for e in parsed.evidence]
        if cited:
            lines.append(f"{frame['sources']}: " + "; ".join(
                f"[{pool.index(next(d for d in pool if d.id == c.id)) + 1}] {c.source}" for c in cited))
        if parsed.uncertainty.strip():
            lines.append(f"{frame['uncertainty']}: {parsed.uncertainty.strip()}")
        abstained = bool(parsed.insufficient_evidence) and mode != "naive"  # naive never knows it failed
        reason = (f"{mode}: model answer citing {len(cited)} of {len(pool)} documents"
                  + ("; model reports insufficient evidence" if parsed.insufficient_evidence else ""))
        return Answer("\n".join(lines), cited, abstained, reason, [call], context=context, prompt=messages)

    @staticmethod
    def _failed(lang: str) -> str:
        return {"ko": "답변을 만들지 못했습니다(모델 출력 오류). 모델 호출 기록을 확인하세요.",
                "en": "No answer could be produced (the model output was unusable); see the recorded model call.",
                "zh": "无法生成答案（模型输出不可用）；请查看记录的模型调用。"}[lang]

    @staticmethod
    def _citations(pool: Sequence[Retrieved], numbers: Sequence[int], text: str) -> list[Citation]:
        wanted = list(numbers) + [int(n) for n in re.findall(r"\[(\d+)\]", text)]
        out: list[Citation] = []
        for n in wanted:
            if 1 <= n <= len(pool) and all(c.id != pool[n - 1].id for c in out):
                d = pool[n - 1]
                out.append(Citation(id=d.id, source=d.source, text=d.text, doc_id=d.doc_id, chunk_index=d.chunk_index))
        return out

    # ---- extraction ---------------------------------------------------------------------------------
    def extract(self, text: str, doc_id: str, chunk_id: str, source_file: str) -> Extraction:
        messages = prompts.extract_messages(text, source_file)
        try:
            parsed, call = self._call("extract", self.settings.router_model, messages, ExtractOutput)
        except ModelCallFailed as failed:  # ingest keeps going with the rules; the call's error says so
            parsed, call = None, failed.model_calls[0]
        if parsed is None:
            fallback = self.offline.extract(text, doc_id, chunk_id, source_file)
            call.error = (call.error or "") + " → used the offline rule-based extraction"
            return Extraction(fallback.entities, fallback.relations, [call])
        entities: dict[str, Entity] = {}
        for e in parsed.entities:
            if e.name.strip():
                entities.setdefault(e.name.strip().casefold(), Entity(e.name.strip(), e.type or "concept"))
        relations = []
        for r in parsed.relations:
            if not (r.source.strip() and r.target.strip() and r.predicate.strip()):
                continue
            for name in (r.source.strip(), r.target.strip()):
                entities.setdefault(name.casefold(), Entity(name))
            relations.append(Relation(source=r.source.strip(), predicate=r.predicate.strip(), target=r.target.strip(),
                                      evidence=r.evidence.strip() or text[:300], doc_id=doc_id, chunk_id=chunk_id,
                                      source_file=source_file))
        return Extraction(list(entities.values()), relations, [call])
