"""A scripted ``DecisionEngine`` for tests that must force the agent's decisions.

Each decision is scripted by a value, a list of values (consumed in order; the last one repeats) or a function
of the call's arguments. Plain values are turned into the engine result types:

    engine = ScriptedEngine(classify="vector", grade=["correct", "incorrect"], evaluate=[0.2, 0.9],
                            rewrite=lambda question, query, docs, grades: query + " 2023")

- classify: a strategy name or a ``Decision``
- grade: a label, a ``(label, score)`` pair or a ``Grade``
- evaluate: a score or a ``Quality``
- rewrite: a query or a ``Rewrite``
- generate: an answer text or an ``Answer``; by default an extractive answer that cites every document it was
  given, abstains when it was given none (except mode="direct"), and marks partial answers.

Every call is recorded in ``engine.calls`` as ``(method, arguments dict)``; every result carries one
``ModelCall`` (model "scripted") so tests can check what a trace counts. A scripted ``Exception`` instance is
raised instead of returned.
"""
from __future__ import annotations

from typing import Any, Callable

from rag.types import Answer, Citation, Decision, Extraction, Grade, ModelCall, Quality, Retrieved, Rewrite

Script = Any  # value | list of values | callable(**arguments) -> value


class ScriptedEngine:
    name = "scripted"

    def __init__(self, classify: Script = "vector", grade: Script = "correct", evaluate: Script = 0.9,
                 rewrite: Script = None, generate: Script = None) -> None:
        self.scripts: dict[str, Script] = {"classify": classify, "grade": grade, "evaluate": evaluate,
                                           "rewrite": rewrite, "generate": generate}
        self._positions: dict[str, int] = {}
        self.calls: list[tuple[str, dict[str, Any]]] = []

    # ---- bookkeeping ---------------------------------------------------------------------------------------------
    def _next(self, method: str, **arguments: Any) -> Any:
        self.calls.append((method, arguments))
        script = self.scripts[method]
        if callable(script) and not isinstance(script, type):
            value = script(**arguments)
        elif isinstance(script, list):
            position = self._positions.get(method, 0)
            self._positions[method] = position + 1
            value = script[min(position, len(script) - 1)]
        else:
            value = script
        if isinstance(value, Exception):
            raise value
        return value

    def count(self, method: str) -> int:
        return sum(1 for name, _ in self.calls if name == method)

    @staticmethod
    def _call(purpose: str, output: str) -> ModelCall:
        return ModelCall(model="scripted", purpose=purpose, prompt=[{"role": "user", "content": purpose}],
                         raw_output=output, prompt_tokens=10, completion_tokens=2)

    # ---- the DecisionEngine protocol -----------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        return {"engine": self.name, "models": {"all": "scripted"}}

    def classify(self, question: str, known_entities: list[str]) -> Decision:
        value = self._next("classify", question=question, known_entities=known_entities)
        if isinstance(value, Decision):
            return value
        return Decision(strategy=str(value), reason=f"scripted: {value}", calls=[self._call("classify", str(value))])

    def grade(self, question: str, doc: Retrieved) -> Grade:
        value = self._next("grade", question=question, doc=doc)
        if isinstance(value, Grade):
            return value
        label, score = value if isinstance(value, tuple) else (value, {"correct": 0.9, "ambiguous": 0.5}.get(value, 0.1))
        return Grade(label=label, score=score, reason=f"scripted: {label}", calls=[self._call("grade", label)])

    def evaluate(self, question: str, docs: list[Retrieved], grades: list[Grade]) -> Quality:
        value = self._next("evaluate", question=question, docs=docs, grades=grades)
        if isinstance(value, Quality):
            return value
        return Quality(score=float(value), reason=f"scripted quality {value}", calls=[self._call("evaluate", str(value))])

    def rewrite(self, question: str, query: str, docs: list[Retrieved], grades: list[Grade]) -> Rewrite:
        value = self._next("rewrite", question=question, query=query, docs=docs, grades=grades)
        if isinstance(value, Rewrite):
            return value
        new_query = f"{query} (rewritten)" if value is None else str(value)
        return Rewrite(query=new_query, reason="scripted rewrite", calls=[self._call("rewrite", new_query)])

    def generate(self, question: str, docs: list[Retrieved], grades: list[Grade] | None, mode: str) -> Answer:
        value = self._next("generate", question=question, docs=docs, grades=grades, mode=mode)
        if isinstance(value, Answer):
            return value
        citations = [Citation(id=d.id, source=d.source, text=d.text, doc_id=d.doc_id, chunk_index=d.chunk_index)
                     for d in docs]
        abstained = not docs and mode != "direct"
        if value is not None:
            text = str(value)
        elif abstained:
            text = "The documents do not answer this question."
        else:
            prefix = {"partial": "Found in the documents (partial): ", "direct": "Direct answer: "}.get(mode, "")
            text = prefix + " ".join(d.text for d in docs) if docs else prefix + question
        context = "\n".join(f"[{i + 1}] {d.text}" for i, d in enumerate(docs))
        return Answer(text=text, citations=citations, abstained=abstained, reason=f"scripted {mode} answer",
                      calls=[self._call("generate", text)], context=context,
                      prompt=[{"role": "user", "content": f"{mode}: {question}\n{context}"}])

    def extract(self, text: str, doc_id: str, chunk_id: str, source_file: str) -> Extraction:
        self.calls.append(("extract", {"text": text}))
        return Extraction(entities=[], relations=[], calls=[])


class ListTool:
    """A tiny in-test ``RetrievalTool``: documents from a function of the query (or a fixed list)."""

    def __init__(self, name: str, docs: list[Retrieved] | Callable[[str], list[Retrieved]] = (),
                 available: tuple[bool, str] = (True, "ok"), error: Exception | None = None) -> None:
        self.name = name
        self._docs = docs
        self._available = available
        self.error = error
        self.queries: list[str] = []

    def available(self) -> tuple[bool, str]:
        return self._available

    def run(self, query: str, top_k: int, **options: object) -> list[Retrieved]:
        self.queries.append(query)
        if self.error is not None:
            raise self.error
        docs = self._docs(query) if callable(self._docs) else list(self._docs)
        return docs[:top_k]


def make_doc(doc_id: str, text: str, tool: str = "vector", score: float = 0.5, source: str = "test.md") -> Retrieved:
    return Retrieved(id=doc_id, text=text, source=source, score=score, tool=tool)


class ToolsKB:
    """Just enough of a knowledge base for graph-structure tests: fixed tools and entity names."""

    def __init__(self, tools: dict[str, Any], entities: list[str] | None = None) -> None:
        self._tools = tools
        self._entities = entities or []

    def tools(self) -> dict[str, Any]:
        return dict(self._tools)

    def known_entities(self) -> list[str]:
        return list(self._entities)
