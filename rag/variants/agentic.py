"""The agentic variant: a LangGraph ``StateGraph`` that routes, grades, reflects and retries (seed 000 + 002).

```
START → classify ─direct→ direct_generate → END
            └─vector|graph|web→ retrieve_<s> → grade_documents → evaluate_context
evaluate_context ─quality ≥ threshold→ generate → END
                 ├─vector fell short, other languages in the KB (once)→ rewrite_query → retrieve_vector
                 │     (the same question, only the documents in another language: ``other_languages_to_search``;
                 │      only those in the question's, when the mixed search returned none of it: ``language_scope``)
                 ├─budget left, untried strategy (vector→graph→web)→ re_route → retrieve_<next>
                 ├─budget left, all tried→ rewrite_query → retrieve_<same>
                 └─budget exhausted or repetition→ partial_answer → END
```

``evaluate_context`` decides the next action (``decide_next``) and records why; the routing
functions only read that decision. The loop bound is ``settings.max_attempts`` counted in the
state (``attempt``); ``recursion_limit`` is only a safety net. Every node appends one ``Step``
to the state; ``AgenticVariant.run`` streams the graph and hands each step to ``on_step`` as it
lands, so a UI can show the run live.
"""
from __future__ import annotations

import functools
import operator
from dataclasses import dataclass
from typing import Annotated, Any, Callable, Literal, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from rag.config import Settings
from rag.trace import Attempt, Run, Step, StepTimer
from rag.textutil import dominant_language
from rag.types import RETRIEVAL_ORDER, Answer, DecisionEngine, Grade, Retrieved, Typed
from rag.variants.base import (
    JACCARD_REPEAT,
    OTHER_LANGUAGES,
    OWN_LANGUAGE,
    Hop,
    KnowledgeBaseLike,
    OnStep,
    TraceRecorder,
    answer_directly,
    answer_output,
    apply_answer,
    clamp01,
    clean_grade,
    doc_records,
    error_text,
    grade_counts,
    guarded,
    index_of,
    jaccard,
    make_step,
    normalize_query,
    retrieval_step,
    short,
    usable_evidence,
    with_context_neighbours,
)
from rag.variants.graphrun import stream_graph

# ---- node names -----------------------------------------------------------------------------------------------------
CLASSIFY = "classify"
RETRIEVE_VECTOR = "retrieve_vector"
RETRIEVE_GRAPH = "retrieve_graph"
RETRIEVE_WEB = "retrieve_web"
RETRIEVE_SQL = "retrieve_sql"  # aggregate questions over a table (seed 002, issue 12)
GRADE_DOCUMENTS = "grade_documents"
EVALUATE_CONTEXT = "evaluate_context"
RE_ROUTE = "re_route"
REWRITE_QUERY = "rewrite_query"
GENERATE = "generate"
DIRECT_GENERATE = "direct_generate"
PARTIAL_ANSWER = "partial_answer"

RETRIEVE_NODE = {"vector": RETRIEVE_VECTOR, "graph": RETRIEVE_GRAPH, "web": RETRIEVE_WEB, "sql": RETRIEVE_SQL}
NODES: tuple[str, ...] = (CLASSIFY, RETRIEVE_VECTOR, RETRIEVE_GRAPH, RETRIEVE_WEB, RETRIEVE_SQL, GRADE_DOCUMENTS,
                          EVALUATE_CONTEXT, RE_ROUTE, REWRITE_QUERY, GENERATE, DIRECT_GENERATE, PARTIAL_ANSWER)
STRATEGIES: tuple[str, ...] = ("vector", "graph", "web", "direct", "sql")

_RETRIEVERS = (RETRIEVE_VECTOR, RETRIEVE_GRAPH, RETRIEVE_WEB, RETRIEVE_SQL)
# Every edge of the static diagram (the UI draws it; a test checks it against the compiled graph).
GRAPH_EDGES: tuple[tuple[str, str], ...] = (
    (START, CLASSIFY),
    (CLASSIFY, DIRECT_GENERATE),
    *((CLASSIFY, r) for r in _RETRIEVERS),
    *((r, GRADE_DOCUMENTS) for r in _RETRIEVERS),
    (GRADE_DOCUMENTS, EVALUATE_CONTEXT),
    (EVALUATE_CONTEXT, GENERATE),
    (EVALUATE_CONTEXT, RE_ROUTE),
    (EVALUATE_CONTEXT, REWRITE_QUERY),
    (EVALUATE_CONTEXT, PARTIAL_ANSWER),
    *((RE_ROUTE, r) for r in _RETRIEVERS),
    *((REWRITE_QUERY, r) for r in _RETRIEVERS),
    (GENERATE, END),
    (DIRECT_GENERATE, END),
    (PARTIAL_ANSWER, END),
)
CONDITIONAL_SOURCES: frozenset[str] = frozenset({CLASSIFY, EVALUATE_CONTEXT, RE_ROUTE, REWRITE_QUERY})

NextAction = Literal["generate", "re_route", "rewrite_query", "partial_answer"]


class AgentState(TypedDict, total=False):
    question: str
    route: str  # the first strategy classify chose
    strategy: str  # strategy of the current (or next) retrieval
    query: str  # query of the current (or next) retrieval
    scope: str  # "" every document | OTHER_LANGUAGES / OWN_LANGUAGE: the next vector search looks only at those
    elsewhere: list[str]  # languages the knowledge base also holds, besides the question's (vector attempts)
    own_unfound: bool  # the vector attempt returned no document in the question's language, which the base holds
    attempt: int  # retrieval attempts started: the loop bound counts this
    tried: Annotated[list[str], operator.add]
    docs: list[Retrieved]  # current attempt
    grades: list[Grade]  # current attempt, same order as docs
    retrieval_ok: bool
    retrieval_note: str
    quality: float
    next_action: str
    next_strategy: str
    action_reason: str
    stop_reason: str
    hops: Annotated[list[Hop], operator.add]  # every attempt's docs and grades (partial answers use them all)
    attempts: Annotated[list[Attempt], operator.add]
    answer: Answer
    steps: Annotated[list[Step], operator.add]


# ---- the decision after each attempt (pure) ------------------------------------------------------------------------

def detect_repetition(hops: list[Hop]) -> str | None:
    """Why the last hop repeats an earlier one, or None. Same normalized query with the same strategy as any
    earlier hop, or retrieved ids overlapping the previous hop's with Jaccard ≥ 0.8 (both non-empty)."""
    if len(hops) < 2:
        return None
    current = hops[-1]
    key = normalize_query(current.query)
    for hop in hops[:-1]:
        if hop.strategy == current.strategy and hop.scope == current.scope and normalize_query(hop.query) == key:
            return (f"attempt {current.number} repeats attempt {hop.number}: the same query "
                    f"({short(current.query, 80)!r}) on the same tool ({current.strategy})")
    previous = hops[-2]
    if current.ids and previous.ids:
        overlap = jaccard(current.ids, previous.ids)
        if overlap >= JACCARD_REPEAT:
            return (f"attempt {current.number} retrieved nearly the same documents as attempt {previous.number} "
                    f"(id overlap {overlap:.2f} ≥ {JACCARD_REPEAT})")
    return None


def decide_next(hops: list[Hop], threshold: float, max_attempts: int,
                order: tuple[str, ...] = RETRIEVAL_ORDER) -> tuple[NextAction, str, str, str]:
    """(action, next strategy, reason, stop reason) after the last hop. Order of checks: quality met → generate;
    repetition → partial answer; budget used up → partial answer; an untried strategy → re-route; otherwise rewrite
    the query for the current strategy (or the last one that worked when the current tool was unavailable)."""
    current = hops[-1]
    if current.status == "ok" and current.quality >= threshold and current.meaning_only:
        typed = current.typed
        if len(typed) == 1:
            # meaning, and a value of the asked kind in one document only (or one that clearly leads the rest,
            # Quality.typed): nothing competes with its answer
            return ("generate", current.strategy,
                    f"quality {current.quality:.2f} ≥ threshold {threshold:.2f} by meaning (the documents are in "
                    f"another language than the question), and one document, {typed[0].source}, states the asked "
                    "kind of value in a sentence that matches by meaning (typed evidence): answer from it",
                    "typed_evidence")
        several = (f"; {len(typed)} documents state a value of the asked kind "
                   f"({', '.join(t.source for t in typed[:3])}), and meaning alone cannot tell which one is asked"
                   if typed else "")
        return ("partial_answer", current.strategy,
                f"quality {current.quality:.2f} ≥ threshold {threshold:.2f}, but only by meaning: the documents are "
                "in another language than the question and the engine cannot check their key terms there"
                f"{several}, so the answer lists them as unconfirmed", "meaning_only")
    if current.status == "ok" and current.quality >= threshold:
        return ("generate", current.strategy,
                f"quality {current.quality:.2f} ≥ threshold {threshold:.2f}: the context is good enough", "quality_met")
    below = (f"quality {current.quality:.2f} < threshold {threshold:.2f}" if current.status == "ok"
             else f"attempt {current.number} failed ({current.note})")
    repeated = detect_repetition(hops)
    if repeated:
        return "partial_answer", current.strategy, f"{below}; {repeated}: stop with what was found", "repetition"
    if len(hops) >= max_attempts:
        return ("partial_answer", current.strategy,
                f"{below}; {len(hops)} of {max_attempts} attempts used: answer with what was found",
                "budget_exhausted")
    other = other_languages_to_search(hops)
    if other and current.own_unfound:
        return ("rewrite_query", "vector",
                f"{below}; none of the documents found is written in the question's language, which the knowledge "
                "base also holds and the search over every language ranked low: search only those", "")
    if other:
        return ("rewrite_query", "vector",
                f"{below}; the knowledge base also holds documents in {', '.join(other)}, which a search in the "
                "question's language ranks low: search only those", "")
    tried = {h.strategy for h in hops}
    untried = [s for s in order if s not in tried]
    if untried:
        return ("re_route", untried[0],
                f"{below}; try the next untried strategy: {untried[0]} (order {' → '.join(order)})", "")
    working = [h.strategy for h in hops if h.status != "failed"]
    if not working:
        return ("partial_answer", current.strategy,
                f"{below}; every strategy was tried and no tool worked: nothing left to rewrite for",
                "budget_exhausted")
    target = current.strategy if current.status != "failed" else working[-1]
    return ("rewrite_query", target, f"{below}; every strategy tried: rewrite the query and search {target} again",
            "")


def other_languages_to_search(hops: list[Hop]) -> tuple[str, ...]:
    """The languages to search next when the last hop was a vector search over every document that fell short and
    the knowledge base also holds documents in other languages than the question's (``Hop.elsewhere``), once per
    run: the multilingual embedder and BM25 rank a document in the question's own language above the right one in
    another language, so those are searched on their own before the graph is tried."""
    current = hops[-1]
    if current.strategy != "vector" or current.status != "ok" or current.scope or not current.elsewhere:
        return ()
    if any(h.scope in (OTHER_LANGUAGES, OWN_LANGUAGE) for h in hops):  # one search by language per run
        return ()
    return tuple(current.elsewhere)


# ---- routing functions (pure: they only read the state) ------------------------------------------------------------

def route_after_classify(state: AgentState) -> Literal["direct_generate", "retrieve_vector", "retrieve_graph",
                                                       "retrieve_web", "retrieve_sql"]:
    if state["strategy"] == "direct":
        return DIRECT_GENERATE
    return RETRIEVE_NODE[state["strategy"]]  # type: ignore[return-value]


def route_after_evaluate(state: AgentState) -> Literal["generate", "re_route", "rewrite_query", "partial_answer"]:
    return {"generate": GENERATE, "re_route": RE_ROUTE, "rewrite_query": REWRITE_QUERY,
            "partial_answer": PARTIAL_ANSWER}[state["next_action"]]  # type: ignore[return-value]


def route_to_retriever(state: AgentState) -> Literal["retrieve_vector", "retrieve_graph", "retrieve_web",
                                                     "retrieve_sql"]:
    return RETRIEVE_NODE[state["strategy"]]  # type: ignore[return-value]


# ---- the nodes ------------------------------------------------------------------------------------------------------

@dataclass
class AgentContext:
    """What the nodes use besides the state, passed per run (the compiled graph is built once and shared)."""

    engine: DecisionEngine
    tools: dict[str, Any]  # name -> RetrievalTool
    settings: Settings
    known_entities: Callable[[], list[str]] = list


Ctx = Runtime[AgentContext]


def classify(state: AgentState, runtime: Ctx) -> dict:
    """Pick the first strategy (vector | graph | web | direct) with the engine's reason."""
    question, engine = state["question"], runtime.context.engine
    with StepTimer() as timer:
        entities = list(runtime.context.known_entities())
        decision = engine.classify(question, entities)
    strategy, reason = str(decision.strategy).strip().lower(), decision.reason
    if strategy not in STRATEGIES:
        reason = f"unknown strategy {decision.strategy!r} from the engine, using vector; {reason}"
        strategy = "vector"
    step = make_step(CLASSIFY, timer, index=index_of(state),
                     inputs={"question": question, "known_entities": len(entities),
                             "known_entities_sample": entities[:20]},
                     output={"strategy": strategy, "kind": getattr(decision, "kind", ""),
                             "signals": dict(decision.signals)},
                     decision=strategy, reason=reason, model_calls=decision.calls)
    return {"route": strategy, "strategy": strategy, "query": question, "steps": [step]}


def language_scope(hops: list[Hop]) -> str:
    """The scope of the search by language that follows the last hop (when ``decide_next`` rewrites for one):
    OWN_LANGUAGE when that search over every document returned none written in the question's language although
    the knowledge base holds some (``Hop.own_unfound``: the sentence channel centres each language on its own
    sentences, and the few sentences of a language the knowledge base holds little of, all on one topic, are
    compressed, so a Chinese question's notice lost to Korean and English pages), else OTHER_LANGUAGES; "" when no
    search by language comes next (``other_languages_to_search``: once per run)."""
    if not other_languages_to_search(hops):
        return ""
    return OWN_LANGUAGE if hops[-1].own_unfound else OTHER_LANGUAGES


def _knowledge_base_counts(tools: dict[str, Any]) -> dict[str, int]:
    """Chunks per language in the knowledge base (the vector tool's ``languages``; none when it cannot say)."""
    languages = getattr(tools.get("vector"), "languages", None)
    if languages is None:
        return {}
    try:
        return dict(languages())
    except Exception:  # the retrieval itself reports a broken store; this only steers the next attempt
        return {}


def _make_retrieve(strategy: str, node: str) -> Callable[[AgentState, Ctx], dict]:
    def retrieve(state: AgentState, runtime: Ctx) -> dict:
        attempt, query = int(state.get("attempt") or 0) + 1, state["query"]
        top_k = runtime.context.settings.top_k
        inputs: dict[str, Any] = {"query": query, "strategy": strategy, "top_k": top_k}
        options: dict[str, Any] = {}
        scope = (state.get("scope") or "") if strategy == "vector" else ""
        own = dominant_language(state["question"])
        if scope in (OTHER_LANGUAGES, OWN_LANGUAGE):
            seen = [d.id for h in state.get("hops") or [] if h.strategy == "vector" for d in h.docs]
            if scope == OTHER_LANGUAGES:
                options = {"exclude_language": own, "exclude_ids": seen}
                inputs.update(scope=f"documents not written in {own}", exclude_language=own, excluded_ids=len(seen))
            else:
                options = {"only_language": own, "exclude_ids": seen}
                inputs.update(scope=f"documents written in {own}", only_language=own, excluded_ids=len(seen))
        outcome, step = retrieval_step(node, runtime.context.tools, strategy, query, top_k, index=index_of(state),
                                       attempt=attempt, inputs=inputs, options=options)
        counts = _knowledge_base_counts(runtime.context.tools) if strategy == "vector" and not scope else {}
        elsewhere = sorted(lang for lang, n in counts.items() if n and lang != own)
        own_unfound = bool(counts.get(own)) and not any(dominant_language(d.text) == own for d in outcome.docs)
        return {"attempt": attempt, "strategy": strategy, "tried": [strategy], "docs": outcome.docs, "grades": [],
                "retrieval_ok": outcome.ok, "retrieval_note": outcome.note, "scope": scope, "elsewhere": elsewhere,
                "own_unfound": own_unfound, "steps": [step]}

    retrieve.__name__ = node
    retrieve.__doc__ = f"One retrieval attempt with the {strategy} tool; unavailable is a failed attempt."
    return retrieve


retrieve_vector = _make_retrieve("vector", RETRIEVE_VECTOR)
retrieve_graph = _make_retrieve("graph", RETRIEVE_GRAPH)
retrieve_web = _make_retrieve("web", RETRIEVE_WEB)
retrieve_sql = _make_retrieve("sql", RETRIEVE_SQL)


def grade_documents(state: AgentState, runtime: Ctx) -> dict:
    """Grade every retrieved document against the question: correct | ambiguous | incorrect. A document an
    earlier attempt already graded keeps that grade (same question, same text: a second verdict costs and
    changes nothing). An engine with ``grade_all`` grades the rest together (one batched call, or in parallel)."""
    question, docs, attempt = state["question"], state.get("docs") or [], int(state["attempt"])
    engine = runtime.context.engine
    earlier = {d.id: g for hop in state.get("hops") or [] for d, g in zip(hop.docs, hop.grades)}
    grading: dict[str, Any] = {}
    with StepTimer() as timer:
        todo = [d for d in docs if d.id not in earlier]
        grade_all = getattr(engine, "grade_all", None)
        if grade_all is not None and todo:
            fresh, grading = grade_all(question, todo)
        else:
            fresh = [engine.grade(question, doc) for doc in todo]
        new = {d.id: clean_grade(g) for d, g in zip(todo, fresh)}
        grades = [new[d.id] if d.id in new else Grade(earlier[d.id].label, earlier[d.id].score,
                                                      f"{earlier[d.id].reason} (grade from an earlier attempt)")
                  for d in docs]
    counts = grade_counts(grades)
    reused = len(docs) - len(todo)
    if docs:
        decision = ", ".join(f"{n} {label}" for label, n in counts.items())
        reason, status = f"graded {len(docs)} document(s) against the question", "ok"
        if reused:
            reason += f" ({reused} kept their grade from an earlier attempt)"
        if grading.get("fallback_reason"):
            reason += f"; {grading['fallback_reason']}"
    else:
        decision, reason, status = "nothing to grade", state.get("retrieval_note") or "no documents", "skipped"
    output: dict[str, Any] = dict(counts)
    if grading or reused:
        output["grading"] = {"mode": grading.get("mode", "per_doc"), "reused": reused,
                             "fallback_ids": list(grading.get("fallback_ids") or [])}
    calls = [*grading.get("calls", []), *(c for g in grades for c in g.calls)]
    step = make_step(GRADE_DOCUMENTS, timer, index=index_of(state), attempt=attempt,
                     inputs={"question": question, "n_documents": len(docs)}, output=output,
                     decision=decision, reason=reason, status=status,
                     model_calls=calls, documents=doc_records(docs, attempt, grades))
    return {"grades": grades, "steps": [step]}


def evaluate_context(state: AgentState, runtime: Ctx) -> dict:
    """Score the context 0..1, record the attempt, and decide what comes next (``decide_next``) and why."""
    question, docs, grades = state["question"], state.get("docs") or [], state.get("grades") or []
    attempt, strategy, settings = int(state["attempt"]), state["strategy"], runtime.context.settings
    retrieval_ok = state.get("retrieval_ok", True)
    calls = []
    typed: tuple[Typed, ...] = ()
    with StepTimer() as timer:
        if not retrieval_ok:
            quality, why = 0.0, f"retrieval failed: {state.get('retrieval_note', '')}"
        elif not docs:
            quality, why = 0.0, "no documents were retrieved"
        else:
            result = runtime.context.engine.evaluate(question, docs, grades)
            quality, why, calls = clamp01(result.score), result.reason, list(result.calls)
            # an engine of an older commit (bench) records none, or source names without their scores
            typed = tuple(t if isinstance(t, Typed) else Typed(str(t), 0.0) for t in getattr(result, "typed", ()) or ())
        hop = Hop(number=attempt, strategy=strategy, query=state["query"], docs=list(docs), grades=list(grades),
                  quality=quality, status="ok" if retrieval_ok else "failed", note="" if retrieval_ok else why,
                  scope=state.get("scope") or "", elsewhere=tuple(state.get("elsewhere") or ()),
                  own_unfound=bool(state.get("own_unfound")),
                  meaning_only=(state.get("scope") == OTHER_LANGUAGES
                                and not getattr(runtime.context.engine, "checks_other_languages", False)),
                  typed=typed)
        hops = [*(state.get("hops") or []), hop]
        action, next_strategy, reason, stop_reason = decide_next(hops, settings.threshold, settings.max_attempts)
        if stop_reason == "repetition" and hop.status == "ok":
            hop.status, hop.note = "repeated", reason
    step = make_step(EVALUATE_CONTEXT, timer, index=index_of(state), attempt=attempt,
                     inputs={"question": question, "query": state["query"], "strategy": strategy,
                             "n_documents": len(docs), "threshold": settings.threshold,
                             "max_attempts": settings.max_attempts},
                     output={"quality": round(quality, 4), "threshold": settings.threshold, "quality_reason": why,
                             "attempts_used": attempt, "next_action": action, "next_strategy": next_strategy,
                             "stop_reason": stop_reason or None},
                     decision=action, reason=reason, model_calls=calls)
    scope = language_scope(hops) if action == "rewrite_query" else ""
    return {"quality": quality, "hops": [hop], "attempts": [hop.to_attempt(settings.threshold)],
            "next_action": action, "next_strategy": next_strategy, "action_reason": reason,
            "stop_reason": stop_reason, "scope": scope, "steps": [step]}


def re_route(state: AgentState, runtime: Ctx) -> dict:
    """Switch to the next untried strategy chosen by evaluate_context."""
    with StepTimer() as timer:
        target = state["next_strategy"]
    step = make_step(RE_ROUTE, timer, index=index_of(state), attempt=int(state["attempt"]),
                     inputs={"from": state["strategy"], "tried": list(dict.fromkeys(state.get("tried") or []))},
                     output={"strategy": target, "query": state["query"]},
                     decision=target, reason=state.get("action_reason", ""))
    return {"strategy": target, "scope": "", "steps": [step]}


def rewrite_query(state: AgentState, runtime: Ctx) -> dict:
    """Ask the engine for a better query; the next retrieval uses it on the strategy evaluate_context chose."""
    question, query = state["question"], state["query"]
    target = state["next_strategy"]
    scope = state.get("scope")
    if scope in (OTHER_LANGUAGES, OWN_LANGUAGE):  # the same question, asked of the documents in other / its language
        with StepTimer() as timer:
            own = dominant_language(question)
        other = scope == OTHER_LANGUAGES
        step = make_step(REWRITE_QUERY, timer, index=index_of(state), attempt=int(state["attempt"]),
                         inputs={"question": question, "query": query, "strategy": target},
                         output={"query": query, "strategy": target, "scope": scope,
                                 ("exclude_language" if other else "only_language"): own},
                         decision=f"same query, documents {'not ' if other else ''}written in {own}",
                         reason=state.get("action_reason", ""))
        return {"query": query, "strategy": target, "steps": [step]}
    with StepTimer() as timer:
        result = runtime.context.engine.rewrite(question, query, state.get("docs") or [], state.get("grades") or [])
    new_query = " ".join(str(result.query or "").split()) or query
    step = make_step(REWRITE_QUERY, timer, index=index_of(state), attempt=int(state["attempt"]),
                     inputs={"question": question, "query": query, "strategy": target},
                     output={"query": new_query, "strategy": target},
                     decision=new_query, reason=result.reason or state.get("action_reason", ""),
                     model_calls=result.calls)
    return {"query": new_query, "strategy": target, "steps": [step]}


def _graded_ids(hops) -> set[str]:
    """Every document graded in any attempt: none of them comes back as an ungraded neighbour."""
    return {d.id for h in hops for d in h.docs}


def _by_meaning(question: str, runtime: Ctx) -> str:
    """The question when the answer also reads the chunks of its usable documents that match it best by meaning
    (Settings.context_in_document), else ""."""
    return question if runtime.context.settings.context_in_document else ""


def generate(state: AgentState, runtime: Ctx) -> dict:
    """Answer from the correct + ambiguous documents of the attempt(s) that met the threshold."""
    question, hops, threshold = state["question"], state.get("hops") or [], runtime.context.settings.threshold
    good = [h for h in hops if h.status == "ok" and h.quality >= threshold] or hops[-1:]
    docs, grades = usable_evidence(good)
    if not docs and good:  # quality met without usable grades: let the generator see what there is (and abstain)
        docs, grades = list(good[-1].docs), list(good[-1].grades)
    attempt = int(state.get("attempt") or 0)
    docs, grades, neighbours = with_context_neighbours(docs, grades, runtime.context.tools,
                                                       runtime.context.settings.context_neighbours,
                                                       graded=_graded_ids(hops), attempt=attempt,
                                                       question=_by_meaning(question, runtime))
    with StepTimer() as timer:
        answer = runtime.context.engine.generate(question, docs, grades, mode="answer")
    step = make_step(GENERATE, timer, index=index_of(state), attempt=attempt, documents=neighbours.records,
                     inputs={"question": question, "attempts_used": [h.number for h in good],
                             "n_documents": len(docs), "doc_ids": [d.id for d in docs], **neighbours.inputs()},
                     output=answer_output(answer), decision="abstained" if answer.abstained else "answered",
                     reason=answer.reason, model_calls=answer.calls)
    return {"answer": answer, "steps": [step]}


def partial_answer(state: AgentState, runtime: Ctx) -> dict:
    """Budget used up or repetition: say what was found (over every hop) and what was not."""
    question, hops = state["question"], state.get("hops") or []
    docs, grades = usable_evidence(hops)  # facts from every hop, not only the last
    attempt = int(state.get("attempt") or 0)
    docs, grades, neighbours = with_context_neighbours(docs, grades, runtime.context.tools,
                                                       runtime.context.settings.context_neighbours,
                                                       graded=_graded_ids(hops), attempt=attempt,
                                                       question=_by_meaning(question, runtime))
    with StepTimer() as timer:
        answer = runtime.context.engine.generate(question, docs, grades, mode="partial")
    step = make_step(PARTIAL_ANSWER, timer, index=index_of(state), attempt=attempt, documents=neighbours.records,
                     inputs={"question": question, "stop_reason": state.get("stop_reason"),
                             "attempts_used": [h.number for h in hops], "n_documents": len(docs),
                             "doc_ids": [d.id for d in docs], **neighbours.inputs()},
                     output=answer_output(answer), decision=state.get("stop_reason") or "partial",
                     reason=f"{state.get('action_reason', '')}. {answer.reason}".strip(". "),
                     model_calls=answer.calls)
    return {"answer": answer, "steps": [step]}


def direct_generate(state: AgentState, runtime: Ctx) -> dict:
    """Answer without retrieval (general knowledge, translation, arithmetic, code syntax)."""
    return answer_directly(DIRECT_GENERATE, state, runtime.context.engine)


# ---- the graph ------------------------------------------------------------------------------------------------------

def build_graph():
    """Assemble and compile the agent graph (it reads like the diagram above). Per-run parts (engine, tools,
    settings) come in as ``context=AgentContext(...)``; ``compiled_graph()`` is the shared instance."""
    graph = StateGraph(AgentState, context_schema=AgentContext)
    for node in (classify, retrieve_vector, retrieve_graph, retrieve_web, retrieve_sql, grade_documents,
                 evaluate_context,
                 re_route, rewrite_query, generate, partial_answer, direct_generate):
        graph.add_node(node.__name__, guarded(node.__name__, node))

    graph.add_edge(START, CLASSIFY)
    graph.add_conditional_edges(CLASSIFY, route_after_classify)
    for node in _RETRIEVERS:
        graph.add_edge(node, GRADE_DOCUMENTS)
    graph.add_edge(GRADE_DOCUMENTS, EVALUATE_CONTEXT)
    graph.add_conditional_edges(EVALUATE_CONTEXT, route_after_evaluate)
    graph.add_conditional_edges(RE_ROUTE, route_to_retriever)
    graph.add_conditional_edges(REWRITE_QUERY, route_to_retriever)
    graph.add_edge(GENERATE, END)
    graph.add_edge(DIRECT_GENERATE, END)
    graph.add_edge(PARTIAL_ANSWER, END)
    return graph.compile()


@functools.lru_cache(maxsize=1)
def compiled_graph():
    return build_graph()


def recursion_limit(max_attempts: int) -> int:
    """Safety net above the state's own bound: classify + 4 nodes per attempt + the final node, with slack."""
    return 4 * max_attempts + 10


# ---- the variant ----------------------------------------------------------------------------------------------------

class AgenticVariant:
    name = "agentic"

    @staticmethod
    def step_limit(settings: Settings) -> int:
        """The graph's recursion_limit for a run (and for a what-if fork of one) under these settings."""
        return recursion_limit(settings.max_attempts)
    label = "Agentic RAG"
    description = ("classify → retrieve → grade every document → evaluate context quality → generate, re-route, "
                   "rewrite or stop with a partial answer (bounded by max attempts)")
    build_graph = staticmethod(compiled_graph)
    answer_nodes = (GENERATE, PARTIAL_ANSWER, DIRECT_GENERATE)
    loop_nodes = (RE_ROUTE, REWRITE_QUERY)
    subtitles = {CLASSIFY: "질문 분류 · route", RETRIEVE_VECTOR: "벡터 검색 · vector", RETRIEVE_GRAPH: "그래프 탐색 · graph",
                 RETRIEVE_WEB: "웹 검색 · web", GRADE_DOCUMENTS: "문서 채점 · grade", EVALUATE_CONTEXT: "품질 평가 · quality",
                 RE_ROUTE: "다른 도구로 · re-route", REWRITE_QUERY: "질문 다시 쓰기 · rewrite", GENERATE: "답변 생성 · answer",
                 DIRECT_GENERATE: "바로 답변 · direct", PARTIAL_ANSWER: "부분 답변 · partial"}
    notes = {
        CLASSIFY: ("질문을 읽고 어디서 답을 찾을지 정합니다: 문서 벡터 검색, 지식 그래프, 웹, 또는 검색 없이 바로 답변.",
                   "Reads the question and decides where to look: document vector search, the knowledge graph, "
                   "the web, or no retrieval at all."),
        RETRIEVE_VECTOR: ("문서 조각(청크)을 의미 유사도(벡터)와 키워드(BM25)로 함께 찾아 순위를 합칩니다.",
                          "Finds document chunks by meaning (vectors) and by keywords (BM25) and fuses the two rankings."),
        RETRIEVE_GRAPH: ("질문 속 개체(사람, 조직, 모델…)를 지식 그래프에서 찾고, 연결된 관계를 몇 단계 따라가 근거 문장을 모읍니다.",
                         "Finds the question's entities in the knowledge graph and follows their relations a few hops, "
                         "collecting the sentences they came from."),
        RETRIEVE_WEB: ("웹 검색(Tavily)으로 최신 정보를 찾습니다. 키가 없으면 '사용 불가'로 기록되고, 다른 도구로 몰래 바꾸지 않습니다.",
                       "Searches the web (Tavily) for recent information. Without a key it is recorded as unavailable, "
                       "never silently replaced by another tool."),
        GRADE_DOCUMENTS: ("가져온 문서 하나하나가 질문에 실제로 답하는지 채점합니다: correct / ambiguous / incorrect.",
                          "Grades every retrieved document on whether it actually answers the question: "
                          "correct / ambiguous / incorrect."),
        EVALUATE_CONTEXT: ("채점 결과로 전체 근거의 품질(0~1)을 계산해 기준값과 비교하고, 다음 행동을 정합니다.",
                           "Turns the grades into one context-quality score (0–1), compares it with the threshold, "
                           "and decides what to do next."),
        RE_ROUTE: ("근거가 부족해서 아직 시도하지 않은 다른 검색 도구로 바꿉니다 (vector → graph → web).",
                   "The evidence was not good enough, so the agent switches to a retrieval tool it has not tried yet "
                   "(vector → graph → web)."),
        REWRITE_QUERY: ("검색어를 더 구체적으로 다시 써서 같은 도구로 다시 찾습니다.",
                        "Rewrites the search query to be more specific and searches again with the same tool."),
        GENERATE: ("충분하다고 판단된 근거만으로 답을 쓰고, 각 주장에 출처를 붙입니다.",
                   "Writes the answer from the evidence judged good enough, citing a source for each claim."),
        DIRECT_GENERATE: ("검색이 필요 없는 질문(번역, 계산, 일반 지식)이라 문서 없이 바로 답합니다.",
                          "The question needs no retrieval (translation, arithmetic, general knowledge), "
                          "so it is answered directly."),
        PARTIAL_ANSWER: ("시도 횟수를 다 썼거나 같은 검색이 반복되어 멈춥니다. 지어내지 않고, 찾은 것과 못 찾은 것을 나눠 말합니다.",
                         "The attempt budget ran out or the search repeated itself, so the agent stops. Instead of "
                         "inventing an answer it says what was found and what was not."),
    }
    min_calls = "direct: 2 · retrieval: 1 + N + 1 + 1 (classify, grade each of N, evaluate, generate)"
    prevents = {"F1": "every document graded; only correct/ambiguous reach the generator",
                "F5": "max_attempts counted in the state, repetition detection",
                "F6": "classify can route 'direct'",
                "F7": "quality threshold: partial answer / abstention when the context is weak"}
    leaves_open = {"F2": "ambiguous documents still reach the generator beside correct ones",
                   "F3": "no check of the answer against the context", "F4": "no check of the answer itself"}

    def run(self, question: str, kb: KnowledgeBaseLike, engine: DecisionEngine, settings: Settings,
            on_step: OnStep | None = None) -> Run:
        recorder = TraceRecorder(question, self.name, engine, settings, on_step)
        run = recorder.run
        try:
            context = AgentContext(engine=engine, tools=kb.tools(), settings=settings,
                                   known_entities=kb.known_entities)
            graph = compiled_graph()
        except Exception as exc:
            recorder.fail(f"the agent could not start: {error_text(exc)}")
            return recorder.finish()
        initial: AgentState = {"question": question, "query": question, "attempt": 0}
        limit = self.step_limit(settings)
        outcome = stream_graph(graph, initial, context, recorder, limit, graph_name="the agent graph")
        if outcome.hit_limit:
            recorder.fail(f"the graph hit its step limit ({limit} steps)")
        final = outcome.final

        run.route = final.get("route")
        run.attempts = list(final.get("attempts") or [])
        if run.error is None:
            answer = final.get("answer")
            run.stop_reason = final.get("stop_reason") or ""
            if answer is not None:
                apply_answer(run, answer)
            run.partial = run.path[-1:] == [PARTIAL_ANSWER]
        return recorder.finish()
