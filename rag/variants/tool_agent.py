"""tool_agent — seed 001's "Agentic RAG": the retriever is a tool, and the agent decides whether to call it.

```
START → agent ─tools_condition: a tool call→ retrieve (ToolNode) → grade_documents ─relevant→ generate → END
          │                                                                        └─not relevant→ rewrite → agent
          └─tools_condition: no tool call (answered directly)→ END
```

- The agent's decision comes from the engine's ``agent`` role (``decide_tool``): the llm engine asks the model
  with the tool's description (the description is what the decision rests on, seed 001), the offline engine uses
  the router's rules. Either way the decision becomes an ``AIMessage`` with (or without) a tool call, and LangGraph's
  prebuilt ``ToolNode`` runs the tool and ``tools_condition`` routes — the seed's own wiring.
- ``grade_documents`` grades the tool's whole result at once, as the seed does (``messages[-1].content``): it only
  catches a retrieval that missed completely; noise mixed into a relevant result passes (F2 stays open).
  The seed uses it as a conditional-edge function; here it is a node, so the grading is a recorded step, followed
  by a conditional edge that reads its verdict.
- ``rewrite`` goes back to the agent, which decides again whether to search at all.
- The loop has no counter: ``recursion_limit`` (``4 × max_attempts + 1`` supersteps) is the bound, as in the seed's
  ``graph.stream(inputs, {"recursion_limit": 10})``. When it is hit the trace records a ``recursion_limit`` step
  (F5) and the run ends with what was found instead of an exception.
"""
from __future__ import annotations

import operator
import time
import warnings
from typing import Annotated, Any, Literal, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode, ToolRuntime, tools_condition

from rag.config import Settings
from rag.trace import Attempt, Run, Step, StepTimer, now_iso
from rag.types import Answer, DecisionEngine, Grade, Retrieved
from rag.variants.base import (KnowledgeBaseLike, OnStep, answer_output, clean_grade, doc_records, guarded,
                               make_step, retrieval_step)
from rag.variants.judging import JudgingContext, apply_final_answer, generate_step, index_of, limit_step, run_judging

AGENT = "agent"
RETRIEVE = "retrieve"
GRADE_DOCUMENTS = "grade_documents"
REWRITE = "rewrite"
GENERATE = "generate"
RECURSION_LIMIT = "recursion_limit"  # the step recorded when the bound is hit (not a graph node)

TOOL_NAME = "retrieve_documents"
# The only thing the agent's decision rests on (seed 001): say what the documents hold and what they do not.
TOOL_DESCRIPTION = ("Search and return passages from the knowledge base of ingested documents (company policies, "
                    "teams and people, products, retrieval and RAG concepts). Use it for facts those documents hold; "
                    "do not use it for translation, arithmetic, code syntax or common knowledge.")

# ToolRuntime carries our dataclass context; pydantic warns while serialising it for tracing (harmless).
warnings.filterwarnings("ignore", message="Pydantic serializer warnings", category=UserWarning)


class ToolAgentState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    question: str
    query: str
    attempt: int  # tool results graded so far (shown, not a bound: recursion_limit is the bound)
    docs: list[Retrieved]
    grade: Grade
    next_action: str
    stop_reason: str
    answer: Answer
    attempts: Annotated[list[Attempt], operator.add]
    steps: Annotated[list[Step], operator.add]


@tool(TOOL_NAME, description=TOOL_DESCRIPTION, response_format="content_and_artifact")
def retrieve_documents(query: str, runtime: ToolRuntime) -> tuple[str, dict]:
    """The retriever as a tool: hybrid vector + BM25 search; its step travels in the ToolMessage artifact."""
    ctx: JudgingContext = runtime.context
    state = runtime.state or {}
    attempt = int(state.get("attempt") or 0) + 1
    outcome, step = retrieval_step(RETRIEVE, ctx.tools, "vector", query, ctx.settings.top_k,
                                   index=index_of(state), attempt=attempt,
                                   inputs={"query": query, "tool": TOOL_NAME, "top_k": ctx.settings.top_k})
    content = "\n\n".join(d.text for d in outcome.docs) if outcome.docs else outcome.note
    return content, {"step": step, "docs": outcome.docs, "ok": outcome.ok, "note": outcome.note}


def agent(state: ToolAgentState, runtime: Any) -> dict:
    """Call the retriever tool, or answer directly when the question needs no documents."""
    ctx, question = runtime.context, state["question"]
    query = state.get("query") or question
    with StepTimer() as timer:
        decision = ctx.engine.decide_tool(question, query)
        wants = str(decision.strategy).strip().lower() != "answer"
        answer = None if wants else ctx.engine.generate(question, [], None, mode="direct")
    n = len([m for m in state.get("messages") or [] if isinstance(m, AIMessage)]) + 1
    if wants:
        tool_query = str(decision.signals.get("query") or query).strip() or query
        message = AIMessage(content="", tool_calls=[{"name": TOOL_NAME, "args": {"query": tool_query},
                                                     "id": f"call_{n}", "type": "tool_call"}])
        output = {"tool_call": {"name": TOOL_NAME, "query": tool_query}}
    else:
        message = AIMessage(content=answer.text)
        output = {"tool_call": None, **answer_output(answer)}
    step = make_step(AGENT, timer, index=index_of(state), attempt=int(state.get("attempt") or 0),
                     inputs={"question": question, "query": query, "tool": TOOL_NAME,
                             "tool_description": TOOL_DESCRIPTION, "doc_ids": []},
                     output=output, decision=f"call {TOOL_NAME}" if wants else "answer directly",
                     reason=decision.reason, model_calls=[*decision.calls, *(answer.calls if answer else [])])
    update: dict = {"messages": [message], "steps": [step]}
    if answer is not None:
        update.update(answer=answer, stop_reason="direct")
    return update


def grade_documents(state: ToolAgentState, runtime: Any) -> dict:
    """Grade the tool's whole result at once (seed 001): relevant → generate, not relevant → rewrite."""
    ctx, question = runtime.context, state["question"]
    message = next(m for m in reversed(state.get("messages") or []) if isinstance(m, ToolMessage))
    artifact = message.artifact if isinstance(message.artifact, dict) else {}
    docs = list(artifact.get("docs") or [])
    attempt = int(state.get("attempt") or 0) + 1
    # the bundle is as close to the question as its closest chunk: carry the retriever's dense similarity so an
    # offline grader does not embed a 3,000-character text (20 s on 2 cores); an llm grader reads the text only
    dense = [d.metadata["dense_similarity"] for d in docs if isinstance(d.metadata.get("dense_similarity"), float)]
    bundle = Retrieved(id=f"tool_result_{attempt}", text=str(message.content), source=TOOL_NAME, score=1.0,
                       tool="vector", metadata={"dense_similarity": max(dense)} if dense else {})
    with StepTimer() as timer:
        if docs:
            grade = clean_grade(ctx.engine.grade(question, bundle))
        else:
            grade = Grade("incorrect", 0.0, f"the tool returned nothing ({artifact.get('note', '')})")
        relevant = grade.label in ("correct", "ambiguous")
    action = GENERATE if relevant else REWRITE
    bundle_grade = Grade(grade.label, grade.score, f"graded with the whole tool result: {grade.reason}")
    step = make_step(GRADE_DOCUMENTS, timer, index=index_of(state), attempt=attempt,
                     inputs={"question": question, "graded": "the whole tool result as one text",
                             "n_documents": len(docs), "chars": len(bundle.text)},
                     output={"label": grade.label, "score": grade.score, "next_action": action},
                     decision=action, reason=f"{grade.label}: {grade.reason}", model_calls=grade.calls,
                     documents=doc_records(docs, attempt, [bundle_grade] * len(docs)))
    record = Attempt(number=attempt, strategy="vector", query=state.get("query") or question,
                     n_documents=len(docs), n_correct=len(docs) if grade.label == "correct" else 0,
                     status="ok" if artifact.get("ok", True) else "failed", note=f"bundle graded {grade.label}")
    return {"attempt": attempt, "docs": docs, "grade": bundle_grade, "next_action": action, "attempts": [record],
            "steps": [step]}


def route_after_grade(state: ToolAgentState) -> Literal["generate", "rewrite"]:
    return state["next_action"]  # type: ignore[return-value]


def rewrite(state: ToolAgentState, runtime: Any) -> dict:
    """Reason about the question's intent and write a better one; the agent then decides again."""
    ctx, question = runtime.context, state["question"]
    query = state.get("query") or question
    docs, grade = state.get("docs") or [], state.get("grade")
    with StepTimer() as timer:
        result = ctx.engine.rewrite(question, query, docs, [grade] * len(docs) if grade else [])
    new_query = " ".join(str(result.query or "").split()) or query
    step = make_step(REWRITE, timer, index=index_of(state), attempt=int(state.get("attempt") or 0),
                     inputs={"question": question, "query": query}, output={"query": new_query},
                     decision=new_query, reason=result.reason, model_calls=result.calls)
    return {"query": new_query, "messages": [HumanMessage(content=new_query)], "steps": [step]}


def generate(state: ToolAgentState, runtime: Any) -> dict:
    """Answer from everything the tool returned (graded as one, so every document goes in)."""
    docs, grade = state.get("docs") or [], state.get("grade")
    answer, step = generate_step(GENERATE, state, runtime.context, docs, [grade] * len(docs) if grade else None,
                                 "answer", int(state.get("attempt") or 0))
    return {"answer": answer, "stop_reason": "relevant", "messages": [AIMessage(content=answer.text)],
            "steps": [step]}


def build_graph():
    graph = StateGraph(ToolAgentState, context_schema=JudgingContext)
    graph.add_node(AGENT, guarded(AGENT, agent))
    graph.add_node(RETRIEVE, ToolNode([retrieve_documents]))
    graph.add_node(GRADE_DOCUMENTS, guarded(GRADE_DOCUMENTS, grade_documents))
    graph.add_node(REWRITE, guarded(REWRITE, rewrite))
    graph.add_node(GENERATE, guarded(GENERATE, generate))
    graph.add_edge(START, AGENT)
    graph.add_conditional_edges(AGENT, tools_condition, {"tools": RETRIEVE, END: END})
    graph.add_edge(RETRIEVE, GRADE_DOCUMENTS)
    graph.add_conditional_edges(GRADE_DOCUMENTS, route_after_grade)
    graph.add_edge(REWRITE, AGENT)
    graph.add_edge(GENERATE, END)
    return graph.compile()


def recursion_limit(max_attempts: int) -> int:
    """The bound (seed 001): agent, retrieve, grade, rewrite per attempt, the last attempt ending in generate —
    4 × max_attempts node steps. LangGraph raises once L nodes have run unless the graph ended before, so a run must
    end within L − 1 nodes: one with ``max_attempts`` tool calls that ends in ``generate`` just fits; after one more
    rewrite the agent decides once more and the limit stops it before another tool call."""
    return 4 * max_attempts + 1


NOTES = {
    AGENT: ("에이전트가 검색 도구(retriever)를 부를지, 바로 답할지 정합니다. 판단 근거는 도구 설명문입니다 (F6 방지).",
            "The agent decides whether to call the retriever tool or answer directly; the tool's description is "
            "what the decision rests on (prevents F6)."),
    RETRIEVE: ("LangGraph의 ToolNode가 검색 도구를 실행합니다. 결과는 ToolMessage 하나로 뭉쳐 들어옵니다.",
               "LangGraph's ToolNode runs the retriever tool; the result comes back as one ToolMessage."),
    GRADE_DOCUMENTS: ("도구 결과 전체를 한 번에 채점합니다. 완전히 헛다리를 짚었는지만 거르고, 섞인 노이즈(F2)는 통과합니다.",
                      "Grades the whole tool result at once: it catches a retrieval that missed completely, "
                      "but noise mixed into a relevant result (F2) passes."),
    REWRITE: ("질문의 의도를 추론해 다시 쓰고, 에이전트에게 돌아가 '검색할지'부터 다시 판단하게 합니다.",
              "Rewrites the question from its intent and goes back to the agent, which decides again whether to "
              "search at all."),
    GENERATE: ("도구가 돌려준 문서 전부로 답합니다 (문서별로 거르지 않음).",
               "Answers from everything the tool returned (no per-document filter)."),
    RECURSION_LIMIT: ("재귀 한도(recursion_limit)에 걸려 멈췄습니다. 그래프 안에 카운터가 없고 실행 옵션만이 무한 재시도(F5)를 막습니다.",
                      "Stopped at recursion_limit: the graph has no counter of its own; only this run-time option "
                      "stops endless retries (F5)."),
}
SUBTITLES = {AGENT: "검색할까? · agent", RETRIEVE: "도구 실행 · ToolNode", GRADE_DOCUMENTS: "결과 통째 채점 · grade",
             REWRITE: "질문 다시 쓰기 · rewrite", GENERATE: "답변 생성 · answer"}


class ToolAgentVariant:
    name = "tool_agent"

    @staticmethod
    def step_limit(settings: Settings) -> int:
        """The graph's recursion_limit for a run (and for a what-if fork of one) under these settings."""
        return recursion_limit(settings.max_attempts)
    label = "Agentic RAG (retriever as a tool)"
    description = ("agent decides whether to call the retriever tool (ToolNode / tools_condition) → grade the whole "
                   "result → generate, or rewrite and let the agent decide again; bounded by recursion_limit")
    build_graph = staticmethod(build_graph)
    answer_nodes = (GENERATE, AGENT, RECURSION_LIMIT)
    loop_nodes = (REWRITE,)
    notes = NOTES
    subtitles = SUBTITLES
    min_calls = "direct: 2 (agent, answer) · retrieval: 3 whatever N (agent, one grade of the whole result, generate)"
    prevents = {"F6": "the agent answers directly when the tool is not needed",
                "F1": "only a result that missed completely (graded as one text)",
                "F5": "recursion_limit (a run-time option, not a counter in the graph)"}
    leaves_open = {"F2": "noise mixed into a relevant result passes the single grade",
                   "F3": "no check of the answer against the documents", "F4": "no check of the answer",
                   "F7": "no abstention rule beyond the generator's own"}

    def run(self, question: str, kb: KnowledgeBaseLike, engine: DecisionEngine, settings: Settings,
            on_step: OnStep | None = None) -> Run:
        limit = self.step_limit(settings)

        def finish(run, outcome, ctx, recorder):
            final = outcome.final
            run.attempts = list(final.get("attempts") or [])
            run.route = "vector" if run.attempts else "direct"
            if outcome.hit_limit and run.error is None and final.get("answer") is None:
                docs, grade = final.get("docs") or [], final.get("grade")
                t0 = time.perf_counter()
                answer = ctx.engine.generate(question, docs, [grade] * len(docs) if grade else [], mode="partial")
                step = limit_step(RECURSION_LIMIT, limit, recorder.next_index(),
                                  f"recursion_limit={limit} supersteps hit after {len(run.attempts)} tool call(s) "
                                  "without reaching an answer: stopped with what was found (F5)", answer)
                step.duration_ms = (time.perf_counter() - t0) * 1000.0
                step.inputs.update({"doc_ids": [d.id for d in docs], "question": question})
                recorder.add(step)
                final = {**final, "answer": answer, "stop_reason": "recursion_limit"}
            apply_final_answer(run, final)
            run.partial = run.stop_reason == "recursion_limit"

        return run_judging(self, question, kb, engine, settings, on_step,
                           {"attempt": 0, "messages": [HumanMessage(content=question)]}, limit, finish)
