"""Shared data types and interfaces of the engine.

Everything that crosses a module boundary is one of these: chunks, retrieved
documents, grades, decisions, model calls. They are plain dataclasses so they
serialise to JSON for the trace (``dataclasses.asdict``).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Literal, Protocol, get_args, runtime_checkable

Strategy = Literal["vector", "graph", "web", "direct", "sql"]
QuestionKind = Literal["lookup", "comparison", "aggregate", "recent"]  # seed 002's four kinds of question
QUESTION_KINDS: tuple[str, ...] = get_args(QuestionKind)
RETRIEVAL_ORDER: tuple[str, ...] = ("vector", "graph", "web")  # re-route order (seed 000)
GradeLabel = Literal["correct", "ambiguous", "incorrect"]


class RagError(Exception):
    """An error meant for the user: its message says what happened and what to do next."""


class IngestError(RagError):
    """A file could not be ingested; nothing of it was written."""


class ToolUnavailable(RagError):
    """A retrieval tool is not configured or its backend is down."""


@dataclass
class Chunk:
    doc_id: str  # content hash of the whole document
    source: str  # file name
    index: int  # position of the chunk in its document
    text: str

    @property
    def chunk_id(self) -> str:
        return f"{self.doc_id}:{self.index}"


@dataclass
class DocumentInfo:
    doc_id: str
    source: str
    n_chunks: int
    n_chars: int
    ingested_at: str  # ISO-8601 UTC


@dataclass
class Entity:
    name: str  # canonical display name
    type: str = "concept"  # person | org | model | concept | ...


@dataclass
class Relation:
    source: str  # entity name
    predicate: str  # short verb phrase, e.g. "developed_by"
    target: str  # entity name
    evidence: str  # the sentence the relation came from
    doc_id: str
    chunk_id: str
    source_file: str = ""


NEIGHBOUR_OF = "neighbour_of"  # metadata key of a chunk read as context next to a usable one (small-to-big)
# metadata key of such a chunk found in the usable chunk's document by meaning, not by position: the question or the
# part of it its sentence matched best (``VectorTool.in_documents``)
MATCHED_FOR = "matched_for"


def context_of(doc: Any) -> str | None:
    """The id of the chunk that ``doc`` (a ``Retrieved`` or a trace ``DocRecord``) was read next to as context
    (``rag.variants.base.with_context_neighbours``); None for a document a search returned."""
    return (getattr(doc, "metadata", None) or {}).get(NEIGHBOUR_OF)


@dataclass
class Retrieved:
    """One document a retrieval tool returned: a chunk, a graph fact or a web page."""

    id: str  # chunk id, triple id or URL
    text: str
    source: str  # file name, "graph" or URL
    score: float  # tool's own score, higher is better
    tool: str  # vector | graph | web
    doc_id: str | None = None
    chunk_index: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class ModelCall:
    """One call to a language model, exactly as sent and received (never with keys)."""

    model: str
    purpose: str  # classify | grade | evaluate | rewrite | generate | extract
    prompt: list[dict[str, str]]  # [{"role": ..., "content": ...}]
    raw_output: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    duration_ms: float = 0.0
    error: str | None = None  # set when the output was malformed or the call failed


@dataclass
class Decision:
    """Output of classify: which strategy, and why."""

    strategy: str
    reason: str
    calls: list[ModelCall] = field(default_factory=list)
    signals: dict[str, Any] = field(default_factory=dict)  # rule hits, entity matches, ...
    kind: str = ""  # QuestionKind (seed 002); "" when the engine did not say; why: signals["kind_reason"]


@dataclass
class Grade:
    label: str  # GradeLabel
    score: float  # 0..1
    reason: str
    calls: list[ModelCall] = field(default_factory=list)


@dataclass(frozen=True)
class Typed:
    """A document graded correct whose sentence matching the question by meaning states a value of the asked kind.
    A dataclass, not a named tuple: the checkpointer (``variants.base.checkpoint_serde``) loads back dataclasses of
    ``rag.*`` only."""

    source: str
    score: float  # the confirmed semantic match of that sentence (0..1)


@dataclass
class Quality:
    score: float  # 0..1 context quality
    reason: str
    calls: list[ModelCall] = field(default_factory=list)
    # the documents graded correct that hold typed evidence: a sentence matching the question by meaning that states
    # a value of the asked kind (offline engine: grading.Grader.confirmed_semantic), best first; only the first
    # when its score leads the others clearly (evaluation.leading_typed); () where none does or the engine records
    # none
    typed: tuple[Typed, ...] = ()


@dataclass
class Rewrite:
    query: str
    reason: str
    calls: list[ModelCall] = field(default_factory=list)


@dataclass
class Citation:
    id: str  # id of the Retrieved it points at
    source: str
    text: str  # the cited chunk / fact
    doc_id: str | None = None
    chunk_index: int | None = None


@dataclass
class Answer:
    text: str
    citations: list[Citation]
    abstained: bool  # True when the evidence did not support an answer
    reason: str
    calls: list[ModelCall] = field(default_factory=list)
    context: str = ""  # exactly the context the generator was given
    prompt: list[dict[str, str]] = field(default_factory=list)  # exactly the prompt (llm) or template (offline)


@dataclass
class Extraction:
    entities: list[Entity]
    relations: list[Relation]
    calls: list[ModelCall] = field(default_factory=list)


GenerateMode = Literal["answer", "direct", "partial", "naive"]


@runtime_checkable
class DecisionEngine(Protocol):
    """Every judging step goes through this interface (offline rules or an LLM)."""

    name: str

    def describe(self) -> dict[str, Any]: ...  # models / rules in use, for the status page and the trace

    def classify(self, question: str, known_entities: list[str]) -> Decision: ...

    def grade(self, question: str, doc: Retrieved) -> Grade: ...

    def evaluate(self, question: str, docs: list[Retrieved], grades: list[Grade]) -> Quality: ...

    def rewrite(self, question: str, query: str, docs: list[Retrieved], grades: list[Grade]) -> Rewrite: ...

    def generate(
        self, question: str, docs: list[Retrieved], grades: list[Grade] | None, mode: GenerateMode
    ) -> Answer: ...

    def extract(self, text: str, doc_id: str, chunk_id: str, source_file: str) -> Extraction: ...


@runtime_checkable
class RetrievalTool(Protocol):
    name: str  # vector | graph | web

    def available(self) -> tuple[bool, str]: ...  # (ok, plain-words reason)

    def run(self, query: str, top_k: int) -> list[Retrieved]: ...  # raises ToolUnavailable


ProgressCallback = Callable[[str, str, float], None]  # (file name, stage, fraction 0..1)
INGEST_STAGES: tuple[str, ...] = ("parse", "chunk", "embed", "vector store", "entities", "graph")


def to_dict(obj: Any) -> Any:
    """Dataclass (or list of them) -> plain JSON-able data."""
    if isinstance(obj, list):
        return [to_dict(o) for o in obj]
    if hasattr(obj, "__dataclass_fields__"):
        return asdict(obj)
    return obj
