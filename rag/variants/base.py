"""What every agent variant shares: the trace recorder, tool calls, doc records, answers.

A variant is a class with ``name``, ``label``, ``description`` and
``run(question, kb, engine, settings, on_step=None) -> Run``; registering it is one
line in ``rag/variants/__init__.py``. The helpers here keep each variant's module
about its own control flow only:

- ``TraceRecorder`` builds the ``Run``: numbered steps, path, edges, wall time,
  ``on_step`` called as each step lands, and a run that ends with a clear message
  when something failed (``fail``).
- ``retrieve_with`` runs a retrieval tool and turns "unavailable" into a failed
  outcome the caller records — never a silent switch to another tool.
- ``Hop`` keeps what one retrieval attempt found and how it was graded, so a partial
  answer can use facts from every hop, not only the last one.
"""
from __future__ import annotations

import logging
import math
import sqlite3
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Protocol

from langgraph.runtime import Runtime

from rag import deadline
from rag.config import Settings, redact_text
from rag.trace import Attempt, DocRecord, Run, Step, StepTimer, now_iso
from rag.types import (MATCHED_FOR, Answer, DecisionEngine, Grade, ModelCall, Retrieved, ToolUnavailable, Typed,
                       context_of)

log = logging.getLogger(__name__)

START_NODE = "__start__"
END_NODE = "__end__"
GRADE_LABELS = ("correct", "ambiguous", "incorrect")
USABLE_GRADES = ("correct", "ambiguous")  # what a generator may build on

OnStep = Callable[[Step], None]


class KnowledgeBaseLike(Protocol):
    """The part of ``rag.kb.KnowledgeBase`` a variant uses."""

    def tools(self) -> dict[str, Any]: ...

    def known_entities(self) -> list[str]: ...


class Variant(Protocol):
    name: str
    label: str
    description: str

    def run(self, question: str, kb: KnowledgeBaseLike, engine: DecisionEngine, settings: Settings,
            on_step: OnStep | None = None) -> Run: ...


# ---- the trace ---------------------------------------------------------------------------------------------------

class TraceRecorder:
    """Builds one ``Run``: ``add(step)`` as steps finish, then ``finish()`` (or ``fail(...)`` first)."""

    def __init__(self, question: str, variant: str, engine: DecisionEngine, settings: Settings,
                 on_step: OnStep | None = None) -> None:
        self.run = Run(question=question, variant=variant, settings=settings.public(), engine=describe(engine))
        self.on_step = on_step
        self.data_dir = settings.data_dir  # where the run's LangGraph checkpoints go (``checkpointed``)
        self._t0 = time.perf_counter()

    def next_index(self) -> int:
        return len(self.run.steps)

    def add(self, step: Step) -> Step:
        """Record a finished step and show it to ``on_step``. Errors of ``on_step`` propagate on purpose:
        a UI stops a script by raising from its callback."""
        step.index = len(self.run.steps)
        self.run.steps.append(step)
        self.run.path.append(step.node)
        if self.on_step is not None:
            self.on_step(step)
        return step

    def fail(self, message: str) -> None:
        """End the run with a plain message instead of an exception."""
        run = self.run
        run.error = message
        current = deadline.current()
        run.stop_reason = "deadline" if current is not None and current.hit else "error"
        run.abstained = True
        run.partial = False
        run.citations = []
        run.answer = f"The run stopped early: {message}"

    def finish(self) -> Run:
        run = self.run
        run.edges = edges_from_path(run.path)
        run.wall_ms = (time.perf_counter() - self._t0) * 1000.0
        if not run.answer.strip():  # every run ends with something to show
            run.answer = "No answer was produced."
            run.abstained = True
        return run


def edges_from_path(path: list[str]) -> list[list[str]]:
    """``["a", "b"]`` -> ``[["__start__","a"], ["a","b"], ["b","__end__"]]`` (empty path -> [])."""
    if not path:
        return []
    nodes = [START_NODE, *path, END_NODE]
    return [[a, b] for a, b in zip(nodes, nodes[1:])]


def describe(engine: DecisionEngine) -> dict[str, Any]:
    try:
        return dict(engine.describe())
    except Exception as exc:  # a broken describe() must not cost the run
        return {"name": getattr(engine, "name", type(engine).__name__), "describe_error": str(exc)}


def index_of(state: dict) -> int:
    """The index the next step of a graph state gets: how many steps it has recorded."""
    return len(state.get("steps") or [])


def make_step(node: str, timer: StepTimer, *, attempt: int = 0, inputs: dict[str, Any] | None = None,
              output: dict[str, Any] | None = None, decision: str = "", reason: str = "", status: str = "ok",
              error: str | None = None, model_calls: Iterable[ModelCall] = (),
              documents: Iterable[DocRecord] = (), index: int = 0) -> Step:
    return Step(index=index, node=node, started_at=timer.started_at, duration_ms=round(timer.duration_ms, 3),
                attempt=attempt, inputs=inputs or {}, output=output or {}, decision=decision, reason=reason,
                status=status, error=error, model_calls=list(model_calls), documents=list(documents))


def failed_step(node: str, started_at: str, t0: float, exc: BaseException, *, index: int = 0, attempt: int = 0,
                inputs: dict[str, Any] | None = None) -> Step:
    """The step of a node that raised; a failed model request carries its recorded call (``exc.model_calls``)."""
    message = error_text(exc)
    return Step(index=index, node=node, started_at=started_at, duration_ms=(time.perf_counter() - t0) * 1000.0,
                attempt=attempt, inputs=inputs or {}, decision="error", reason=f"{node} failed: {message}",
                status="failed", error=message, model_calls=list(getattr(exc, "model_calls", None) or []))


def error_text(exc: BaseException) -> str:
    """``Type: message`` with credentials inside URLs redacted (backend errors often quote their URI)."""
    text = redact_text(str(exc).strip())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class NodeFailed(Exception):
    """Raised out of a graph node: carries the failed step so the runner can record it and end the run."""

    def __init__(self, step: Step, cause: BaseException) -> None:
        super().__init__(step.error or str(cause))
        self.step = step
        self.cause = cause


def guarded(node: str, function: Callable[[dict, Runtime], dict]) -> Callable[[dict, Runtime], dict]:
    """Wrap a LangGraph node ``(state, runtime) -> update``: any exception becomes ``NodeFailed`` carrying a
    failed ``Step``, so the runner records it and ends the run with a message instead of raising."""

    def wrapper(state: dict, runtime: Runtime) -> dict:
        started_at, t0 = now_iso(), time.perf_counter()
        try:
            deadline.check(f"step '{node}'")  # a node never starts after the run's deadline
            return function(state, runtime)
        except NodeFailed:
            raise
        except Exception as exc:
            log.debug("node %s failed", node, exc_info=True)
            step = failed_step(node, started_at, t0, exc, index=index_of(state),
                               attempt=int(state.get("attempt") or 0),
                               inputs={"question": state.get("question"), "query": state.get("query")})
            raise NodeFailed(step, exc) from exc

    wrapper.__name__ = node
    wrapper.__doc__ = function.__doc__
    return wrapper


# ---- retrieval ------------------------------------------------------------------------------------------------------

@dataclass
class RetrievalOutcome:
    docs: list[Retrieved]
    ok: bool
    note: str  # plain words: what happened


def retrieve_with(tools: dict[str, Any], strategy: str, query: str, top_k: int,
                  options: dict[str, Any] | None = None) -> RetrievalOutcome:
    """Run the tool named ``strategy`` (``options``: keyword arguments for its ``run``, e.g. the vector tool's
    ``exclude_language``). Unavailable (missing, ``available()`` false or ``ToolUnavailable``) is a failed outcome
    with the reason; other exceptions propagate (the node records them)."""
    tool = tools.get(strategy)
    if tool is None:
        return RetrievalOutcome([], False, f"no '{strategy}' tool is configured")
    ok, why = tool.available()
    if not ok:
        return RetrievalOutcome([], False, f"the {strategy} tool is unavailable: {redact_text(why)}")
    try:
        docs = list(tool.run(query, top_k, **options) if options else tool.run(query, top_k))
    except ToolUnavailable as exc:
        return RetrievalOutcome([], False, f"the {strategy} tool is unavailable: {redact_text(str(exc))}")
    note = f"{len(docs)} document(s) from {strategy}" if docs else f"the {strategy} tool returned no documents"
    return RetrievalOutcome(docs, True, note)


def retrieval_step(node: str, tools: dict[str, Any], strategy: str, query: str, top_k: int, *,
                   inputs: dict[str, Any], attempt: int = 0, index: int = 0,
                   options: dict[str, Any] | None = None) -> tuple[RetrievalOutcome, Step]:
    """One timed ``retrieve_with`` and the step that records it (documents, ids; a failed step when unavailable)."""
    with StepTimer() as timer:
        outcome = retrieve_with(tools, strategy, query, top_k, options)
    step = make_step(node, timer, index=index, attempt=attempt, inputs=inputs,
                     output={"n_documents": len(outcome.docs), "ids": [d.id for d in outcome.docs]},
                     decision="ok" if outcome.ok else "failed", reason=outcome.note,
                     status="ok" if outcome.ok else "failed", documents=doc_records(outcome.docs, attempt))
    return outcome, step


def doc_records(docs: list[Retrieved], attempt: int, grades: list[Grade] | None = None) -> list[DocRecord]:
    records = []
    for i, doc in enumerate(docs):
        record = DocRecord.from_retrieved(doc, attempt)
        if grades is not None and i < len(grades):
            record.grade, record.grade_score, record.grade_reason = (grades[i].label, float(grades[i].score),
                                                                     grades[i].reason)
        records.append(record)
    return records


def clean_grade(grade: Grade) -> Grade:
    """A grade with a known label and a score in 0..1 (engines can return odd values; we record what we did)."""
    label = str(grade.label).strip().lower()
    reason = grade.reason
    if label not in GRADE_LABELS:
        reason = f"unknown grade {grade.label!r} treated as incorrect; {reason}"
        label = "incorrect"
    return Grade(label=label, score=clamp01(grade.score), reason=reason, calls=list(grade.calls))


def grade_counts(grades: Iterable[Grade]) -> dict[str, int]:
    """How many grades carry each label, in ``GRADE_LABELS`` order (correct, ambiguous, incorrect)."""
    labels = [g.label for g in grades]
    return {label: labels.count(label) for label in GRADE_LABELS}


def clamp01(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    if math.isnan(number):
        return 0.0
    return min(1.0, max(0.0, number))


# ---- hops (per-attempt facts) ---------------------------------------------------------------------------------------

@dataclass
class Hop:
    """One retrieval attempt: what was asked, what came back, how it was graded."""

    number: int
    strategy: str
    query: str
    docs: list[Retrieved] = field(default_factory=list)
    grades: list[Grade] = field(default_factory=list)
    quality: float = 0.0
    status: str = "ok"  # ok | failed | repeated
    note: str = ""
    scope: str = ""  # "" every document | OTHER_LANGUAGES / OWN_LANGUAGE: only documents in another / its language
    elsewhere: tuple[str, ...] = ()  # languages the knowledge base also holds that this hop's search ranked unfairly
    # a search over every document that returned none in the question's language, which the knowledge base holds
    own_unfound: bool = False
    meaning_only: bool = False  # judged by meaning alone (other languages, an engine that cannot check them there)
    # correct documents whose sentence matching by meaning states the asked kind of value, best first
    typed: tuple[Typed, ...] = ()

    @property
    def ids(self) -> set[str]:
        return {d.id for d in self.docs}

    def usable(self) -> list[tuple[Retrieved, Grade]]:
        return [(d, g) for d, g in zip(self.docs, self.grades) if g.label in USABLE_GRADES]

    def to_attempt(self, threshold: float) -> Attempt:
        return Attempt(number=self.number, strategy=self.strategy, query=self.query, quality=self.quality,
                       threshold=threshold, n_documents=len(self.docs),
                       n_correct=sum(1 for g in self.grades if g.label == "correct"), status=self.status,
                       note=self.note)


def usable_evidence(hops: Iterable[Hop]) -> tuple[list[Retrieved], list[Grade]]:
    """Correct and ambiguous docs over the given hops, first occurrence of each id wins, in hop order."""
    docs: list[Retrieved] = []
    grades: list[Grade] = []
    seen: set[str] = set()
    for hop in hops:
        for doc, grade in hop.usable():
            if doc.id not in seen:
                seen.add(doc.id)
                docs.append(doc)
                grades.append(grade)
    return docs, grades


@dataclass
class Neighbours:
    """What ``with_context_neighbours`` added: their records for the trace (ungraded, each naming the chunk it
    neighbours) and why none were read when that was not for want of neighbours ("" otherwise)."""

    records: list[DocRecord] = field(default_factory=list)
    note: str = ""

    @property
    def of(self) -> dict[str, str]:
        """{neighbour id: the chunk it neighbours}."""
        return {r.id: str(context_of(r)) for r in self.records}

    def inputs(self) -> dict[str, Any]:
        out: dict[str, Any] = {"context_neighbours": self.of}
        if self.note:
            out["context_neighbours_note"] = self.note
        return out


def with_context_neighbours(docs: list[Retrieved], grades: list[Grade], tools: dict[str, Any], width: int,
                            graded: Iterable[str] = (), attempt: int = 0, question: str = ""
                            ) -> tuple[list[Retrieved], list[Grade], Neighbours]:
    """The usable documents plus the chunks next to each usable vector chunk in its document
    (``VectorTool.neighbours``, ``width`` either side; Settings.context_neighbours), for the answer to read as
    context: small-to-big, as in LangChain's parent-document or LlamaIndex's sentence-window retrieval. Only chunks
    graded correct or ambiguous get neighbours, and a chunk graded in any attempt (``graded``: its id) is never
    added back as one. A neighbour is not graded: the generator gets it as "ambiguous" with the score of the chunk
    it neighbours and a reason that says so (the engine's interface knows only graded documents); the trace records
    it ungraded (``Neighbours.records``, grade None). With a ``question`` (Settings.context_in_document), also the
    chunks of the same documents whose sentence matches the question or a part of it best by meaning
    (``VectorTool.in_documents``). Nothing is added when the vector tool is missing; when it fails, what it could
    read stays and ``Neighbours.note`` says what was not read."""
    question = question.strip()
    if width <= 0 and not question:
        return docs, grades, Neighbours()
    parents = [d for d, g in zip(docs, grades) if g.label in USABLE_GRADES and d.tool == "vector"]
    if not parents:
        return docs, grades, Neighbours()
    tool = tools.get("vector")
    if tool is None or not hasattr(tool, "neighbours"):
        return docs, grades, Neighbours(note="no vector tool that can read neighbouring chunks")
    extra: list[Retrieved] = []
    notes: list[str] = []
    try:
        extra = tool.neighbours(parents, width, exclude=set(graded)) if width > 0 else []
    except ToolUnavailable as exc:
        notes.append(f"neighbouring chunks not read: {exc}")
    if question and hasattr(tool, "in_documents"):
        try:
            extra += tool.in_documents(parents, question, exclude=set(graded) | {n.id for n in extra})
        except ToolUnavailable as exc:
            notes.append(f"chunks of the same documents matching by meaning not read: {exc}")
    by_id = {d.id: (d, g) for d, g in zip(docs, grades)}
    added: list[Grade] = []
    records: list[DocRecord] = []
    for n in extra:
        parent, grade = by_id[str(context_of(n))]
        matched = (n.metadata or {}).get(MATCHED_FOR)
        if matched is None:
            why = (f"not graded: the chunk next to {parent.source} #{parent.chunk_index} (graded {grade.label}) in "
                   "its document, read as its context")
        else:
            what = "the question" if matched == question else f"the part of the question {matched!r}"
            why = (f"not graded: the chunk of {parent.source} (#{parent.chunk_index} graded {grade.label}) whose "
                   f"sentence matches {what} best by meaning, read as context")
        added.append(Grade(label="ambiguous", score=grade.score, reason=f"{why}; the score is that chunk's"))
        record = DocRecord.from_retrieved(n, attempt)
        record.grade_reason = why
        records.append(record)
    return docs + extra, grades + added, Neighbours(records, note="; ".join(notes))


OTHER_LANGUAGES = "other_languages"  # Hop.scope of a search restricted to documents in other languages
OWN_LANGUAGE = "own_language"  # Hop.scope of a search restricted to documents in the question's language
JACCARD_REPEAT = 0.8  # retrieved ids this close to the previous hop's: the same place dug again


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if (a or b) else 0.0


def normalize_query(query: str) -> str:
    try:
        from rag.textutil import normalize_query as normalize
    except ImportError:  # the shared text utilities not there yet: a plain normalisation
        return " ".join("".join(ch for ch in query.lower() if ch.isalnum() or ch.isspace()).split())
    return normalize(query)


# ---- answers --------------------------------------------------------------------------------------------------------

def apply_answer(run: Run, answer: Answer) -> None:
    """Copy the generator's answer into the run (text, citations, abstained, exact context and prompt)."""
    run.answer = answer.text
    run.citations = list(answer.citations)
    run.abstained = bool(answer.abstained)
    run.generator_context = answer.context
    run.generator_prompt = list(answer.prompt)


def answer_output(answer: Answer) -> dict[str, Any]:
    return {"answer": answer.text, "abstained": bool(answer.abstained), "citations": len(answer.citations),
            "cited_ids": [c.id for c in answer.citations]}


def answer_directly(node: str, state: dict, engine: DecisionEngine) -> dict[str, Any]:
    """The direct-answer node's update: answer ``state["question"]`` without retrieval and record it as ``node``."""
    question = state["question"]
    with StepTimer() as timer:
        answer = engine.generate(question, [], None, mode="direct")
    step = make_step(node, timer, index=index_of(state), inputs={"question": question},
                     output=answer_output(answer), decision="abstained" if answer.abstained else "answered",
                     reason=answer.reason, model_calls=answer.calls)
    return {"answer": answer, "stop_reason": "direct", "steps": [step]}


def short(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---- checkpoints (what-if replay: ``rag.replay`` forks a run from these) -----------------------------------------

CHECKPOINTS_DB = "checkpoints.sqlite3"


def checkpoint_serde() -> Any:
    """LangGraph's serializer, allowed to load back our own state types only — the dataclasses of the ``rag.*``
    modules and of every registered variant's module (an add-on's too) — instead of any class the database names."""
    from dataclasses import is_dataclass

    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    from rag.variants.registry import VARIANTS

    names = {name for name in list(sys.modules) if name == "rag" or name.startswith("rag.")}
    names |= {cls.__module__ for cls in VARIANTS.values()}
    allowed = {(obj.__module__, obj.__name__)
               for name in names if name in sys.modules
               for obj in list(vars(sys.modules[name]).values())
               if isinstance(obj, type) and is_dataclass(obj) and obj.__module__ in names}
    return JsonPlusSerializer(allowed_msgpack_modules=sorted(allowed))


@contextmanager
def open_checkpointer(data_dir: str | Path) -> Iterator[Any]:
    """The SQLite checkpointer in ``data_dir/checkpoints.sqlite3`` (``langgraph-checkpoint-sqlite``), closed after."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = Path(data_dir)
    path.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path / CHECKPOINTS_DB, check_same_thread=False, timeout=30)
    try:
        conn.execute("PRAGMA journal_mode=WAL")  # readers (the inspector) do not block a run that writes
        yield SqliteSaver(conn, serde=checkpoint_serde())
    finally:
        conn.close()


@contextmanager
def checkpointed(graph: Any, recorder: TraceRecorder, config: dict[str, Any]) -> Iterator[tuple[Any, dict]]:
    """``(graph, config)`` for one run: the compiled graph bound to the data dir's checkpointer and ``config`` with
    the run id as ``thread_id``. Afterwards ``run.replay`` holds the thread and its last checkpoint. A checkpoint
    database that cannot be opened costs the replay, never the run: the graph runs without one."""
    run = recorder.run
    thread_id = run.replay.get("thread_id") or run.run_id
    resume_from = run.replay.get("resume_from")  # a fork continues from this checkpoint (rag.replay)
    try:
        saver_context = open_checkpointer(recorder.data_dir)
        saver = saver_context.__enter__()
    except (sqlite3.Error, OSError) as exc:
        log.warning("no checkpoints for run %s (what-if replay unavailable): %s", run.run_id, exc)
        yield graph, config
        return
    try:
        bound = graph.copy(update={"checkpointer": saver})
        configurable = {"thread_id": thread_id, **({"checkpoint_id": resume_from} if resume_from else {}),
                        **(config.get("configurable") or {})}
        config = {**config, "configurable": configurable}
        yield bound, config
        try:
            latest = bound.get_state({"configurable": {"thread_id": thread_id}})  # the newest checkpoint: this run's
        except sqlite3.Error as exc:  # the answer is still good; only its replay is lost
            log.warning("run %s: its last checkpoint could not be read (what-if replay unavailable): %s",
                        run.run_id, exc)
            return
        checkpoint_id = (latest.config or {}).get("configurable", {}).get("checkpoint_id")
        run.replay.update({"thread_id": thread_id, "checkpoint_id": checkpoint_id})
    finally:
        saver_context.__exit__(None, None, None)
