"""Hand-built runs in the fixed trace schema (rag/trace.py), for testing the drawing code without the engine."""
from __future__ import annotations

from rag.trace import Attempt, DocRecord, Run, Step
from rag.types import Citation, ModelCall


def rerouted_run() -> Run:
    """vector fails the threshold, re-route to graph passes: 8 steps, 2 attempts."""
    nodes = [("classify", 0, "vector", "a fact about one document"),
             ("retrieve_vector", 1, "", ""),
             ("grade_documents", 1, "", ""),
             ("evaluate_context", 1, "re_route", "quality 0.30 < threshold 0.60; graph not tried yet"),
             ("re_route", 2, "graph", "next untried strategy"),
             ("retrieve_graph", 2, "", ""),
             ("grade_documents", 2, "", ""),
             ("evaluate_context", 2, "generate", "quality 0.80 ≥ threshold 0.60"),
             ("generate", 2, "", "answered from 1 correct document")]
    steps = []
    for i, (node, attempt, decision, reason) in enumerate(nodes):
        docs = []
        if node == "grade_documents" and attempt == 1:
            docs = [DocRecord(id="d1:0", source="hr_compensation.txt", text="연봉 계약은 매년 3월에 갱신합니다.",
                              score=0.71, tool="vector", doc_id="d1", chunk_index=0, attempt=1, grade="incorrect",
                              grade_score=0.2, grade_reason="similar words, does not answer"),
                    DocRecord(id="d2:3", source="people_directory.md", text="김민준 leads Atlas.", score=0.52,
                              tool="vector", doc_id="d2", chunk_index=3, attempt=1, grade="ambiguous",
                              grade_score=0.45, grade_reason="mentions the entity only")]
        if node == "grade_documents" and attempt == 2:
            docs = [DocRecord(id="t:atlas-built_by-search", source="graph", text="Atlas built_by Search team",
                              score=0.9, tool="graph", attempt=2, grade="correct", grade_score=0.9,
                              grade_reason="states the answer")]
        calls = [ModelCall(model="offline-rules", purpose="classify", prompt=[{"role": "user", "content": "Q?"}],
                           raw_output='{"strategy": "vector"}')] if node == "classify" else []
        steps.append(Step(index=i, node=node, started_at="2026-11-30T08:00:00.000+00:00", duration_ms=10.0 + i,
                          attempt=attempt, decision=decision, reason=reason, documents=docs, model_calls=calls,
                          inputs={"query": "Who built Atlas?"} if node.startswith("retrieve") else {},
                          output={"quality": 0.3 if attempt == 1 else 0.8} if node == "evaluate_context" else {}))
    path = [s.node for s in steps]
    edges = [["__start__", path[0]]] + [[a, b] for a, b in zip(path, path[1:])] + [[path[-1], "__end__"]]
    return Run(question="Who built Atlas?", variant="agentic", settings={"threshold": 0.6, "max_attempts": 2},
               route="vector", path=path, edges=edges, steps=steps,
               attempts=[Attempt(number=1, strategy="vector", query="Who built Atlas?", quality=0.3, threshold=0.6,
                                 n_documents=2, n_correct=0),
                         Attempt(number=2, strategy="graph", query="Who built Atlas?", quality=0.8, threshold=0.6,
                                 n_documents=1, n_correct=1)],
               answer="Atlas was built by the Search team [1].",
               citations=[Citation(id="t:atlas-built_by-search", source="graph", text="Atlas built_by Search team")],
               stop_reason="quality_met", generator_context="[1] Atlas built_by Search team",
               generator_prompt=[{"role": "system", "content": "Answer from the context."}], wall_ms=123.0)
