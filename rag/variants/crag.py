"""CRAG — Corrective RAG (seed 003; CRAG's three grades, seed 002): grade every document three ways and correct.

```
START → retrieve → grade_documents ─any correct→ refine_knowledge → generate → END
                                   ├─else any ambiguous→ web_search → refine_knowledge
                                   ├─all incorrect, attempts < guard→ rewrite_query → retrieve
                                   └─all incorrect, attempts guard reached→ not_found → END
```

- correct → knowledge refinement: only the sentences of the document that bear on the question ("strips") reach
  the generator; what was kept and dropped is recorded.
- ambiguous → web results are added (without a web key the web step is a recorded failed attempt, and the
  refined internal documents are used alone).
- incorrect → rewrite the query and search again; the attempts guard (``settings.max_attempts``, 2 by default, as
  ``attempts >= 2`` in seed 003) ends the loop with an honest "not found".
"""
from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from langgraph.graph import END, START, StateGraph

from rag.config import Settings
from rag.trace import Attempt, Run, Step, StepTimer
from rag.types import Answer, DecisionEngine, Grade, Retrieved
from rag.variants.base import KnowledgeBaseLike, OnStep, doc_records, guarded, make_step, short
from rag.variants.judging import (
    JudgingContext,
    apply_final_answer,
    attempt_record,
    generate_step,
    grade_counts,
    grade_each,
    index_of,
    retrieve_step,
    rewrite_step,
    run_judging,
)

RETRIEVE = "retrieve"
GRADE_DOCUMENTS = "grade_documents"
REFINE_KNOWLEDGE = "refine_knowledge"
WEB_SEARCH = "web_search"
REWRITE_QUERY = "rewrite_query"
GENERATE = "generate"
NOT_FOUND = "not_found"

NextAction = Literal["refine_knowledge", "web_search", "rewrite_query", "not_found"]


class CragState(TypedDict, total=False):
    question: str
    query: str
    attempt: int  # retrievals started: the attempts guard counts this
    docs: list[Retrieved]
    grades: list[Grade]
    web_docs: list[Retrieved]
    refined: list[Retrieved]
    refined_grades: list[Grade]
    next_action: str
    action_reason: str
    stop_reason: str
    answer: Answer
    attempts: Annotated[list[Attempt], operator.add]
    steps: Annotated[list[Step], operator.add]


def decide_after_grade(grades: list[Grade], attempt: int, guard: int) -> tuple[NextAction, str]:
    """The CRAG decision (pure): correct → refine; ambiguous → web; incorrect → rewrite until the guard."""
    counts = grade_counts(grades)
    seen = f"{counts['correct']} correct, {counts['ambiguous']} ambiguous, {counts['incorrect']} incorrect"
    if counts["correct"]:
        return "refine_knowledge", f"{seen}: keep the relevant sentences of the correct document(s)"
    if counts["ambiguous"]:
        return "web_search", f"{seen}: ambiguous — add web results to the internal documents"
    if attempt < guard:
        return "rewrite_query", f"{seen}: nothing usable — rewrite the query and search again ({attempt} of {guard})"
    return "not_found", f"{seen}: attempts guard reached ({attempt} ≥ {guard}) — say it was not found"


def retrieve(state: CragState, runtime: Any) -> dict:
    """Vector + BM25 search with the current query (the question first, then the rewritten one)."""
    attempt = int(state.get("attempt") or 0) + 1
    docs, step, ok, note = retrieve_step(RETRIEVE, state, runtime.context, state["query"], attempt)
    return {"attempt": attempt, "docs": docs, "grades": [], "web_docs": [], "steps": [step]}


def grade_documents(state: CragState, runtime: Any) -> dict:
    """Grade every document correct / ambiguous / incorrect and decide the correction."""
    ctx, docs, attempt = runtime.context, state.get("docs") or [], int(state["attempt"])
    with StepTimer() as timer:
        grades = grade_each(state["question"], docs, ctx)
        action, reason = decide_after_grade(grades, attempt, ctx.settings.max_attempts)
    step = make_step(GRADE_DOCUMENTS, timer, index=index_of(state), attempt=attempt,
                     inputs={"question": state["question"], "n_documents": len(docs),
                             "attempts_guard": ctx.settings.max_attempts},
                     output={**grade_counts(grades), "next_action": action}, decision=action, reason=reason,
                     model_calls=[c for g in grades for c in g.calls], documents=doc_records(docs, attempt, grades))
    record = attempt_record(attempt, "vector", state["query"], docs, grades, note=reason)
    stop = "attempts_guard" if action == "not_found" else ""
    return {"grades": grades, "next_action": action, "action_reason": reason, "stop_reason": stop,
            "attempts": [record], "steps": [step]}


def route_after_grade(state: CragState) -> Literal["refine_knowledge", "web_search", "rewrite_query", "not_found"]:
    return state["next_action"]  # type: ignore[return-value]


def web_search(state: CragState, runtime: Any) -> dict:
    """Ambiguous evidence: search the web with the question (a recorded failed attempt when it is unavailable)."""
    attempt = int(state["attempt"])
    docs, step, ok, note = retrieve_step(WEB_SEARCH, state, runtime.context, state["question"], attempt,
                                         strategy="web")
    record = Attempt(number=attempt, strategy="web", query=state["question"], n_documents=len(docs),
                     status="ok" if ok else "failed", note=note)
    return {"web_docs": docs, "attempts": [record] if not ok else [], "steps": [step]}


def refine_knowledge(state: CragState, runtime: Any) -> dict:
    """Knowledge refinement: split each usable document into sentences and keep only the relevant strips."""
    ctx, question = runtime.context, state["question"]
    docs, grades = state.get("docs") or [], state.get("grades") or []
    wanted = "correct" if any(g.label == "correct" for g in grades) else "ambiguous"
    pool = [(d, g) for d, g in zip(docs, grades) if g.label == wanted]
    pool += [(d, Grade("ambiguous", 0.5, "web result (not graded)")) for d in state.get("web_docs") or []]
    refined: list[Retrieved] = []
    refined_grades: list[Grade] = []
    strips: list[dict] = []
    calls = []
    with StepTimer() as timer:
        for doc, grade in pool:
            verdict = ctx.engine.refine(question, doc)
            calls += verdict.calls
            kept = [s for s in verdict.details.get("kept", []) if s.strip()] or [doc.text]
            refined.append(Retrieved(id=doc.id, text=" ".join(kept), source=doc.source, score=doc.score,
                                     tool=doc.tool, doc_id=doc.doc_id, chunk_index=doc.chunk_index,
                                     metadata={**doc.metadata, "strips": kept,
                                               "dropped": verdict.details.get("dropped", [])}))
            refined_grades.append(grade)
            strips.append({"id": doc.id, "kept": len(kept), "dropped": len(verdict.details.get("dropped", [])),
                           "reason": verdict.reason})
    records = doc_records(refined, int(state["attempt"]), refined_grades)
    kept_n, dropped_n = sum(s["kept"] for s in strips), sum(s["dropped"] for s in strips)
    step = make_step(REFINE_KNOWLEDGE, timer, index=index_of(state), attempt=int(state["attempt"]),
                     inputs={"question": question, "grade_used": wanted, "n_documents": len(pool)},
                     output={"strips": strips, "kept_sentences": kept_n, "dropped_sentences": dropped_n},
                     decision=f"{kept_n} strip(s) kept, {dropped_n} dropped",
                     reason=f"{wanted} document(s) refined to their relevant sentences"
                            + (f"; {len(state.get('web_docs') or [])} web result(s) added" if state.get("web_docs")
                               else ""), model_calls=calls, documents=records)
    return {"refined": refined, "refined_grades": refined_grades, "steps": [step]}


def generate(state: CragState, runtime: Any) -> dict:
    """Answer from the refined strips only."""
    answer, step = generate_step(GENERATE, state, runtime.context, state.get("refined") or [],
                                 state.get("refined_grades") or [], "answer", int(state.get("attempt") or 0))
    return {"answer": answer, "stop_reason": "refined", "steps": [step]}


def rewrite_query(state: CragState, runtime: Any) -> dict:
    """Every document incorrect: rewrite the query for the document search and go again."""
    query, step = rewrite_step(REWRITE_QUERY, state, runtime.context, state.get("docs") or [],
                               state.get("grades") or [], int(state["attempt"]), state.get("action_reason", ""))
    return {"query": query, "steps": [step]}


def not_found(state: CragState, runtime: Any) -> dict:
    """The attempts guard was reached with nothing usable: say so instead of guessing."""
    answer, step = generate_step(NOT_FOUND, state, runtime.context, [], [], "partial", int(state["attempt"]),
                                 {"stop_reason": "attempts_guard", "reason": short(state.get("action_reason", ""))})
    return {"answer": answer, "stop_reason": "attempts_guard", "steps": [step]}


NODES = (retrieve, grade_documents, web_search, refine_knowledge, generate, rewrite_query, not_found)


def add_crag(graph: StateGraph, entry_from: str | None = START) -> None:
    """Add CRAG's nodes and edges to ``graph`` (adaptive reuses them for its complex path)."""
    for node in NODES:
        graph.add_node(node.__name__, guarded(node.__name__, node))
    if entry_from is not None:
        graph.add_edge(entry_from, RETRIEVE)
    graph.add_edge(RETRIEVE, GRADE_DOCUMENTS)
    graph.add_conditional_edges(GRADE_DOCUMENTS, route_after_grade)
    graph.add_edge(WEB_SEARCH, REFINE_KNOWLEDGE)
    graph.add_edge(REFINE_KNOWLEDGE, GENERATE)
    graph.add_edge(REWRITE_QUERY, RETRIEVE)
    graph.add_edge(GENERATE, END)
    graph.add_edge(NOT_FOUND, END)


def build_graph():
    graph = StateGraph(CragState, context_schema=JudgingContext)
    add_crag(graph)
    return graph.compile()


def recursion_limit(max_attempts: int) -> int:
    """Safety net above the attempts guard: 3 nodes per attempt + web, refine, answer, with slack."""
    return 3 * max_attempts + 10


NOTES = {
    RETRIEVE: ("문서 조각을 벡터+BM25로 찾습니다. 재작성 후에는 새 검색어로 다시 찾습니다.",
               "Finds chunks by vector + BM25; after a rewrite, with the new query."),
    GRADE_DOCUMENTS: ("CRAG의 세 등급으로 문서마다 채점합니다: correct면 정제, ambiguous면 웹 보강, 전부 incorrect면 재작성.",
                      "Grades each document with CRAG's three grades: correct → refine, ambiguous → add the web, "
                      "all incorrect → rewrite."),
    REFINE_KNOWLEDGE: ("지식 정제: 문서를 문장으로 쪼개 질문과 관련된 문장(strip)만 남기고 나머지는 버립니다. 노이즈(F2)를 줄입니다.",
                       "Knowledge refinement: splits documents into sentences and keeps only the relevant strips, "
                       "dropping the rest — less noise (F2) reaches the generator."),
    WEB_SEARCH: ("애매한 근거를 웹 결과로 보강합니다. 웹 키가 없으면 실패한 시도로 기록됩니다.",
                 "Adds web results to ambiguous evidence; without a web key it is a recorded failed attempt."),
    REWRITE_QUERY: ("모든 문서가 틀렸으니 검색어를 바꿔 다시 찾습니다. 시도 횟수 가드가 무한 재시도(F5)를 막습니다.",
                    "Every document was incorrect: rewrite the query and search again; the attempts guard stops "
                    "endless retries (F5)."),
    GENERATE: ("정제된 문장만으로 답하고 출처를 붙입니다.", "Answers from the refined strips only, with citations."),
    NOT_FOUND: ("가드에 도달했으니 지어내지 않고 '찾지 못했다'고 정직하게 답합니다.",
                "The guard was reached: it says honestly that the answer was not found instead of guessing."),
}
SUBTITLES = {RETRIEVE: "검색 · retrieve", GRADE_DOCUMENTS: "3단계 채점 · grade", REFINE_KNOWLEDGE: "지식 정제 · strips",
             WEB_SEARCH: "웹 보강 · web", REWRITE_QUERY: "질문 다시 쓰기 · rewrite", GENERATE: "답변 생성 · answer",
             NOT_FOUND: "못 찾음 · not found"}


class CragVariant:
    name = "crag"

    @staticmethod
    def step_limit(settings: Settings) -> int:
        """The graph's recursion_limit for a run (and for a what-if fork of one) under these settings."""
        return recursion_limit(settings.max_attempts)
    label = "CRAG (corrective)"
    description = ("retrieve → grade each document correct/ambiguous/incorrect → refine to relevant sentences, add "
                   "web results, or rewrite and search again; attempts guard, then an honest 'not found'")
    build_graph = staticmethod(build_graph)
    answer_nodes = (GENERATE, NOT_FOUND)
    loop_nodes = (REWRITE_QUERY,)
    notes = NOTES
    subtitles = SUBTITLES
    min_calls = "N + k + 1 (grade each of N, refine k correct docs — 0 calls offline —, generate)"
    prevents = {"F1": "incorrect documents never reach the generator", "F2": "refinement keeps relevant sentences only",
                "F5": "attempts guard (max_attempts) counted in the state", "F7": "guard → honest 'not found'"}
    leaves_open = {"F3": "no check of the answer against the strips", "F4": "no check of the answer",
                   "F6": "always retrieves"}

    def run(self, question: str, kb: KnowledgeBaseLike, engine: DecisionEngine, settings: Settings,
            on_step: OnStep | None = None) -> Run:
        def finish(run, outcome, ctx, recorder):
            run.route = "vector"
            run.attempts = list(outcome.final.get("attempts") or [])
            apply_final_answer(run, outcome.final)
            run.partial = run.stop_reason == "attempts_guard"

        return run_judging(self, question, kb, engine, settings, on_step, {"attempt": 0},
                           self.step_limit(settings), finish)
