"""Self-RAG (seed 001's second judging RAG; seed 003): retrieve on demand, grade each document, generate, then
judge the generation twice.

```
START → decide_retrieval ─answer directly→ generate
                         └─retrieve→ retrieve → grade_documents ─relevant docs→ generate
                                                                ├─none, retrievals left→ rewrite_query → retrieve
                                                                └─none, budget used→ generate (it abstains)
generate → check_hallucination ─supported→ grade_answer ─useful→ END
                               │                        ├─not useful, retrievals left→ rewrite_query
                               │                        └─not useful, budget used→ END
                               ├─not supported, generations left→ generate (regenerate)
                               └─not supported, budget used→ END (unsupported sentences flagged)
```

Two loops, each bounded and counted in the state: retrievals (``attempt`` ≤ ``settings.max_attempts``) and
generations (``generations`` ≤ ``settings.max_attempts``). Documents are graded one by one (unlike tool_agent's
one grade of the whole tool result), so noise is filtered before the generator sees it.
"""
from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from langgraph.graph import END, START, StateGraph

from rag.config import Settings
from rag.trace import Attempt, Run, Step, StepTimer
from rag.types import Answer, DecisionEngine, Grade, Retrieved
from rag.variants.base import KnowledgeBaseLike, OnStep, doc_records, guarded, make_step
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
    usable,
)

DECIDE_RETRIEVAL = "decide_retrieval"
RETRIEVE = "retrieve"
GRADE_DOCUMENTS = "grade_documents"
REWRITE_QUERY = "rewrite_query"
GENERATE = "generate"
CHECK_HALLUCINATION = "check_hallucination"
GRADE_ANSWER = "grade_answer"


class SelfRagState(TypedDict, total=False):
    question: str
    query: str
    retrieve: bool  # decide_retrieval's decision
    attempt: int  # retrievals started (bounded by max_attempts)
    generations: int  # generations made (bounded by max_attempts)
    docs: list[Retrieved]
    grades: list[Grade]
    relevant: list[Retrieved]
    relevant_grades: list[Grade]
    next_action: str
    action_reason: str
    stop_reason: str
    unsupported: list[str]
    answer: Answer
    attempts: Annotated[list[Attempt], operator.add]
    steps: Annotated[list[Step], operator.add]


# ---- the decisions (pure) -----------------------------------------------------------------------------------------

def after_grading(n_relevant: int, attempt: int, max_attempts: int) -> tuple[str, str]:
    if n_relevant:
        return "generate", f"{n_relevant} relevant document(s): generate from them"
    if attempt < max_attempts:
        return "rewrite_query", f"no relevant document: rewrite and retrieve again ({attempt} of {max_attempts})"
    return "generate", f"no relevant document and {attempt} of {max_attempts} retrievals used: generate (abstains)"


def after_hallucination(supported: bool, generations: int, max_generations: int) -> tuple[str, str, str]:
    """(next, reason, stop reason)"""
    if supported:
        return "grade_answer", "every checked sentence is supported by the documents", ""
    if generations < max_generations:
        return "generate", f"not supported: regenerate ({generations} of {max_generations} generations)", ""
    return "end", (f"not supported and {generations} of {max_generations} generations used: stop, the "
                   "unsupported sentences are flagged"), "generation_budget"


def after_answer_grade(useful: bool, attempt: int, max_attempts: int, retrieved: bool) -> tuple[str, str, str]:
    if useful:
        return "end", "the answer addresses the question", "answer_useful"
    if retrieved and attempt < max_attempts:
        return "rewrite_query", f"not useful: rewrite and retrieve again ({attempt} of {max_attempts})", ""
    why = "no retrieval to retry" if not retrieved else f"{attempt} of {max_attempts} retrievals used"
    return "end", f"not useful and {why}: stop", "budget_exhausted"


# ---- nodes --------------------------------------------------------------------------------------------------------

def decide_retrieval(state: SelfRagState, runtime: Any) -> dict:
    """Self-RAG's [Retrieve] judgement: does this question need the documents at all?"""
    question = state["question"]
    with StepTimer() as timer:
        decision = runtime.context.engine.decide_tool(question, question)
    wants = str(decision.strategy).strip().lower() != "answer"
    step = make_step(DECIDE_RETRIEVAL, timer, index=index_of(state), inputs={"question": question},
                     output={"retrieve": wants, "signals": dict(decision.signals)},
                     decision="retrieve" if wants else "answer directly", reason=decision.reason,
                     model_calls=decision.calls)
    return {"retrieve": wants, "steps": [step]}


def route_after_decide(state: SelfRagState) -> Literal["retrieve", "generate"]:
    return RETRIEVE if state.get("retrieve") else GENERATE  # type: ignore[return-value]


def retrieve(state: SelfRagState, runtime: Any) -> dict:
    attempt = int(state.get("attempt") or 0) + 1
    docs, step, ok, note = retrieve_step(RETRIEVE, state, runtime.context, state["query"], attempt)
    return {"attempt": attempt, "docs": docs, "grades": [], "steps": [step]}


def grade_documents(state: SelfRagState, runtime: Any) -> dict:
    """[IsRel]: each document on its own; only the relevant ones (correct or ambiguous) are kept."""
    ctx, docs, attempt = runtime.context, state.get("docs") or [], int(state["attempt"])
    with StepTimer() as timer:
        grades = grade_each(state["question"], docs, ctx)
        relevant, relevant_grades = usable(docs, grades)
        action, reason = after_grading(len(relevant), attempt, ctx.settings.max_attempts)
    counts = grade_counts(grades)
    step = make_step(GRADE_DOCUMENTS, timer, index=index_of(state), attempt=attempt,
                     inputs={"question": state["question"], "n_documents": len(docs)},
                     output={**counts, "kept": [d.id for d in relevant], "next_action": action},
                     decision=action, reason=f"{counts['correct']} correct, {counts['ambiguous']} ambiguous, "
                                             f"{counts['incorrect']} incorrect → {reason}",
                     model_calls=[c for g in grades for c in g.calls], documents=doc_records(docs, attempt, grades))
    return {"grades": grades, "relevant": relevant, "relevant_grades": relevant_grades, "next_action": action,
            "action_reason": reason, "attempts": [attempt_record(attempt, "vector", state["query"], docs, grades,
                                                                 note=reason)], "steps": [step]}


def route_after_grade(state: SelfRagState) -> Literal["generate", "rewrite_query"]:
    return state["next_action"]  # type: ignore[return-value]


def generate(state: SelfRagState, runtime: Any) -> dict:
    generations = int(state.get("generations") or 0) + 1
    if state.get("retrieve"):
        docs, grades, mode = state.get("relevant") or [], state.get("relevant_grades") or [], "answer"
    else:
        docs, grades, mode = [], None, "direct"
    answer, step = generate_step(GENERATE, state, runtime.context, docs, grades, mode,
                                 int(state.get("attempt") or 0), {"generation": generations})
    return {"answer": answer, "generations": generations, "steps": [step]}


def check_hallucination(state: SelfRagState, runtime: Any) -> dict:
    """[IsSup]: is every sentence of the answer supported by the documents it was given?"""
    ctx, answer = runtime.context, state["answer"]
    docs = state.get("relevant") or [] if state.get("retrieve") else []
    generations = int(state.get("generations") or 0)
    with StepTimer() as timer:
        if answer.abstained:
            from rag.engines.roles import Verdict

            verdict = Verdict("supported", 1.0, "the answer abstains: it claims nothing to check")
        else:
            verdict = ctx.engine.grade_hallucination(state["question"], answer.text, docs)
        supported = verdict.label != "not_supported"
        action, reason, stop = after_hallucination(supported, generations, ctx.settings.max_attempts)
    unsupported = list(verdict.details.get("unsupported", []))
    step = make_step(CHECK_HALLUCINATION, timer, index=index_of(state), attempt=int(state.get("attempt") or 0),
                     inputs={"answer": answer.text, "doc_ids": [d.id for d in docs], "generation": generations},
                     output={"label": verdict.label, "score": verdict.score, "unsupported": unsupported,
                             "sentences": verdict.details.get("sentences", []), "next_action": action},
                     decision=verdict.label, reason=f"{verdict.reason} → {reason}", model_calls=verdict.calls)
    update: dict = {"next_action": action, "action_reason": reason, "unsupported": unsupported, "steps": [step]}
    if stop:
        update["stop_reason"] = stop
    return update


def route_after_hallucination(state: SelfRagState) -> Literal["grade_answer", "generate", "__end__"]:
    return END if state["next_action"] == "end" else state["next_action"]  # type: ignore[return-value]


def grade_answer(state: SelfRagState, runtime: Any) -> dict:
    """[IsUse]: does the answer address the question?"""
    ctx, answer = runtime.context, state["answer"]
    attempt = int(state.get("attempt") or 0)
    with StepTimer() as timer:
        verdict = ctx.engine.grade_answer(state["question"], answer.text, bool(answer.abstained))
        useful = verdict.label != "not_useful"
        action, reason, stop = after_answer_grade(useful, attempt, ctx.settings.max_attempts,
                                                  bool(state.get("retrieve")))
    step = make_step(GRADE_ANSWER, timer, index=index_of(state), attempt=attempt,
                     inputs={"question": state["question"], "answer": answer.text},
                     output={"label": verdict.label, "score": verdict.score, "details": verdict.details,
                             "next_action": action},
                     decision=verdict.label, reason=f"{verdict.reason} → {reason}", model_calls=verdict.calls)
    update: dict = {"next_action": action, "action_reason": reason, "steps": [step]}
    if stop:
        update["stop_reason"] = stop
    return update


def route_after_answer(state: SelfRagState) -> Literal["rewrite_query", "__end__"]:
    return END if state["next_action"] == "end" else REWRITE_QUERY  # type: ignore[return-value]


def rewrite_query(state: SelfRagState, runtime: Any) -> dict:
    query, step = rewrite_step(REWRITE_QUERY, state, runtime.context, state.get("docs") or [],
                               state.get("grades") or [], int(state.get("attempt") or 0),
                               state.get("action_reason", ""))
    return {"query": query, "generations": 0, "steps": [step]}


def build_graph():
    graph = StateGraph(SelfRagState, context_schema=JudgingContext)
    for node in (decide_retrieval, retrieve, grade_documents, generate, check_hallucination, grade_answer,
                 rewrite_query):
        graph.add_node(node.__name__, guarded(node.__name__, node))
    graph.add_edge(START, DECIDE_RETRIEVAL)
    graph.add_conditional_edges(DECIDE_RETRIEVAL, route_after_decide)
    graph.add_edge(RETRIEVE, GRADE_DOCUMENTS)
    graph.add_conditional_edges(GRADE_DOCUMENTS, route_after_grade)
    graph.add_edge(GENERATE, CHECK_HALLUCINATION)
    graph.add_conditional_edges(CHECK_HALLUCINATION, route_after_hallucination)
    graph.add_conditional_edges(GRADE_ANSWER, route_after_answer)
    graph.add_edge(REWRITE_QUERY, RETRIEVE)
    return graph.compile()


def recursion_limit(max_attempts: int) -> int:
    """Safety net above the two counted loops: per retrieval 3 nodes plus per generation 3 nodes."""
    return 3 * max_attempts + 3 * max_attempts * max_attempts + 10


NOTES = {
    DECIDE_RETRIEVAL: ("검색이 필요한지부터 판단합니다 (Self-RAG의 [Retrieve]). 필요 없으면 바로 답합니다(F6 방지).",
                       "Decides first whether the question needs retrieval at all (Self-RAG's [Retrieve]); if not, "
                       "it answers directly (prevents F6)."),
    RETRIEVE: ("문서 조각을 찾습니다.", "Finds document chunks."),
    GRADE_DOCUMENTS: ("문서를 하나씩 채점해 관련 있는 것만 남깁니다 ([IsRel]). 뭉쳐서 한 번 채점하는 tool_agent와 다릅니다.",
                      "Grades documents one by one and keeps only the relevant ones ([IsRel]) — unlike tool_agent, "
                      "which grades the whole tool result at once."),
    GENERATE: ("남은 문서로 답을 씁니다. 근거 없는 문장이 있으면 다시 씁니다.",
               "Writes the answer from the kept documents; regenerates when a sentence was unsupported."),
    CHECK_HALLUCINATION: ("환각 검사 ([IsSup]): 답의 문장마다 문서에 근거가 있는지 봅니다. 없으면 다시 생성(횟수 제한).",
                          "Hallucination check ([IsSup]): is every sentence of the answer supported by the "
                          "documents? If not, regenerate (bounded)."),
    GRADE_ANSWER: ("답이 질문에 실제로 답하는지 봅니다 ([IsUse]). 아니면 질문을 바꿔 다시 검색(횟수 제한).",
                   "Does the answer actually address the question ([IsUse])? If not, rewrite and retrieve again "
                   "(bounded)."),
    REWRITE_QUERY: ("검색어를 다시 써서 다시 찾습니다.", "Rewrites the query and retrieves again."),
}
SUBTITLES = {DECIDE_RETRIEVAL: "검색 필요? · [Retrieve]", RETRIEVE: "검색 · retrieve", GRADE_DOCUMENTS: "문서별 채점 · [IsRel]",
             GENERATE: "답변 생성 · answer", CHECK_HALLUCINATION: "근거 확인 · [IsSup]", GRADE_ANSWER: "답 유용성 · [IsUse]",
             REWRITE_QUERY: "질문 다시 쓰기 · rewrite"}


class SelfRagVariant:
    name = "self_rag"

    @staticmethod
    def step_limit(settings: Settings) -> int:
        """The graph's recursion_limit for a run (and for a what-if fork of one) under these settings."""
        return recursion_limit(settings.max_attempts)
    label = "Self-RAG"
    description = ("decide whether to retrieve → grade each document → generate → hallucination grader → answer "
                   "grader; unsupported → regenerate, not useful → rewrite and retrieve (both loops bounded)")
    build_graph = staticmethod(build_graph)
    answer_nodes = (GENERATE,)
    loop_nodes = (REWRITE_QUERY,)
    notes = NOTES
    subtitles = SUBTITLES
    min_calls = "N + 4 (retrieval decision, grade each of N, generate, hallucination grader, answer grader)"
    prevents = {"F1": "documents graded one by one, incorrect ones dropped",
                "F3": "hallucination grader → regenerate", "F4": "answer grader → rewrite and retrieve",
                "F5": "retrievals and generations counted against max_attempts",
                "F6": "retrieval decided on demand"}
    leaves_open = {"F2": "ambiguous documents count as relevant and stay beside correct ones",
                   "F7": "when every generation is 'supported' by weak documents, it answers (no context-quality "
                         "threshold)"}

    def run(self, question: str, kb: KnowledgeBaseLike, engine: DecisionEngine, settings: Settings,
            on_step: OnStep | None = None) -> Run:
        def finish(run, outcome, ctx, recorder):
            final = outcome.final
            run.route = "vector" if final.get("retrieve") else "direct"
            run.attempts = list(final.get("attempts") or [])
            apply_final_answer(run, final)
            if run.error is None and not run.stop_reason:
                run.stop_reason = "answer_useful"
            unsupported = final.get("unsupported") or []
            if run.error is None and unsupported and run.stop_reason == "generation_budget":
                run.partial = True
                run.answer += "\n\n⚠ " + "; ".join(f"not supported by the documents: {s!r}" for s in unsupported)

        return run_judging(self, question, kb, engine, settings, on_step, {"attempt": 0, "generations": 0},
                           self.step_limit(settings), finish)
