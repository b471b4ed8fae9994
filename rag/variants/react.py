"""The react variant: seed 002's ReAct loop over the tools vector / graph / web / sql, with its question kinds,
per-kind hop limits, the four stop conditions and hop summaries.

```
START → think ─direct→ direct_generate → END
             ├─comparison→ retrieve_target × N (LangGraph Send: one retrieval per target) → compare → END
             └─lookup / aggregate / recent→ act → observe
observe ─enough evidence (top-k grade scores ≥ threshold)→ generate → END
        ├─the route's failure signal, recovery unused→ recover (one hop to another route) → act
        ├─repetition (query embedding similarity, or retrieved-id overlap)→ partial_answer → END
        ├─hop limit of the kind reached→ generate (a hop met the threshold) or partial_answer → END
        └─else→ rewrite_query → act
```

- think = Thought (the engine's classify: route, kind, comparison targets); act = Action (one tool call);
  observe = Observation (grade, summarize, decide). Where the loop goes is decided in ``decide_after_hop`` (pure) and
  recorded with its reason; routing functions only read it.
- Kinds and hop limits (seed 002's table): lookup → vector/graph (``hop_limit_lookup``), comparison → one retrieval
  per target then merged (``hop_limit_comparison`` targets at most), aggregate → sql (``hop_limit_aggregate``),
  recent → web (``hop_limit_recent``). The recovery hop (sql → vector, vector → graph, graph → vector,
  web → vector) is allowed once, outside the limit: "회복 경로는 한 번만 허용한다".
- Failure signals: sql — refused, no rows, or a suspect (off-target) query; vector / graph — every document graded
  incorrect (or none); web — no results or unavailable.
- Hop summaries: after each hop only two or three lines of new findings stay in the state, each with its source ids;
  the raw documents are dropped (``docs`` holds the current hop only). The final generation re-fetches the cited
  chunks from the knowledge base (graph facts, web pages and SQL results from the run's hop cache). Every observe step
  records the context size with summaries and what it would be with the raw chunks piled up
  (``estimate_tokens``: one per Hangul syllable, Latin word, number or symbol).
"""
from __future__ import annotations

import operator
import re
from dataclasses import dataclass, field
from typing import Annotated, Any, Callable, Literal, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from rag.config import Settings
from rag.trace import Attempt, Run, Step, StepTimer
from rag.types import Answer, Citation, DecisionEngine, Grade, RagError, Retrieved, ToolUnavailable
from rag.variants.base import (
    JACCARD_REPEAT,
    USABLE_GRADES,
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
    retrieve_with,
    short,
)
from rag.variants.graphrun import stream_graph

# ---- node names -----------------------------------------------------------------------------------------------------
THINK = "think"
ACT = "act"
OBSERVE = "observe"
RECOVER = "recover"
REWRITE_QUERY = "rewrite_query"
RETRIEVE_TARGET = "retrieve_target"
COMPARE = "compare"
GENERATE = "generate"
PARTIAL_ANSWER = "partial_answer"
DIRECT_GENERATE = "direct_generate"

TOOLS = ("vector", "graph", "web", "sql")
KIND_ROUTE = {"aggregate": "sql", "recent": "web"}  # seed 002: where a kind goes when the engine named no tool
RECOVERY = {"sql": "vector", "vector": "graph", "graph": "vector", "web": "vector"}  # one hop, once
SUMMARY_LINES = 3

NextAction = Literal["generate", "recover", "rewrite_query", "partial_answer"]


@dataclass
class HopNote:
    """What one hop leaves behind: 2–3 lines of findings with their source ids, never the raw documents."""

    number: int
    strategy: str
    query: str
    target: str = ""
    recovery: bool = False  # the one recovery hop (outside the kind's hop limit)
    status: str = "ok"  # ok | failed | repeated
    note: str = ""
    lines: list[str] = field(default_factory=list)
    evidence: list[dict[str, Any]] = field(default_factory=list)  # usable docs: id, source, tool, label, score, line
    ids: list[str] = field(default_factory=list)
    usable_scores: list[float] = field(default_factory=list)  # grade scores of correct/ambiguous docs, best first
    quality: float = 0.0
    failure_signal: str = ""  # why this route failed ("" when it did not)
    raw_tokens: int = 0  # the raw documents of this hop (dropped after it)
    summary_tokens: int = 0
    details: dict[str, Any] = field(default_factory=dict)  # sql: query, rows, on-target reason

    def to_attempt(self, threshold: float) -> Attempt:
        return Attempt(number=self.number, strategy=self.strategy, query=self.query, quality=self.quality,
                       threshold=threshold, n_documents=len(self.ids),
                       n_correct=sum(1 for e in self.evidence if e["label"] == "correct"), status=self.status,
                       note=self.note or self.failure_signal)


class ReactState(TypedDict, total=False):
    question: str
    kind: str
    route: str
    strategy: str
    query: str
    target: str  # retrieve_target only (the Send payload)
    targets: list[str]
    number: int  # retrieve_target only
    hop: int  # hops started
    recovered: bool
    docs: list[Retrieved]  # the current hop's raw documents only; emptied by observe
    hop_ok: bool
    hop_note: str
    hop_details: dict
    hop_calls: list
    notes: Annotated[list[HopNote], operator.add]
    next_action: str
    next_strategy: str
    action_reason: str
    stop_reason: str
    answer: Answer
    attempts: Annotated[list[Attempt], operator.add]
    steps: Annotated[list[Step], operator.add]


@dataclass
class ReactContext:
    engine: DecisionEngine
    tools: dict[str, Any]
    settings: Settings
    kb: Any = None
    known_entities: Callable[[], list[str]] = list
    cache: dict[str, Retrieved] = field(default_factory=dict)  # non-chunk documents by id, for the re-fetch
    _vectors: dict[str, list[float]] = field(default_factory=dict)

    def similarity(self, a: str, b: str) -> float | None:
        """Cosine of two queries' embeddings, or None without an embedder (then only equal queries repeat)."""
        embedder = getattr(self.kb, "embedder", None) if self.kb is not None else None
        if embedder is None:
            return None
        from rag.embeddings import cosine

        for text in (a, b):
            if text not in self._vectors:
                self._vectors[text] = embedder.embed_query(text)
        return float(cosine(self._vectors[a], self._vectors[b]))


Ctx = Runtime[ReactContext]


# ---- small pure helpers ---------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"[가-힣]|[A-Za-z]+|\d+|[^\sA-Za-z\d가-힣]")


def estimate_tokens(text: str) -> int:
    """A transparent token estimate: one per Hangul syllable, Latin word, number or other symbol (close to what
    BPE tokenizers spend on Korean; a little under for long English words)."""
    return len(_TOKEN.findall(text or ""))


def hop_limit(settings: Settings, kind: str) -> int:
    return {"comparison": settings.hop_limit_comparison, "aggregate": settings.hop_limit_aggregate,
            "recent": settings.hop_limit_recent}.get(kind, settings.hop_limit_lookup)


def korean(text: str) -> bool:
    return bool(re.search(r"[가-힣]", text))


def summarize_hop(question: str, docs: list[Retrieved], grades: list[Grade], focus: str = "",
                  known: set[str] | frozenset[str] = frozenset()) -> tuple[list[str], list[dict]]:
    """(2–3 lines of new findings, each ending with its source id; the usable evidence behind them). For each usable
    document, best grade first, the sentence naming ``focus`` (a comparison target) and sharing the most words with
    the question; headings and list marks are not findings."""
    from rag.textutil import split_sentences, tokenize

    terms = set(tokenize(question))
    usable = sorted(((d, g) for d, g in zip(docs, grades) if g.label in USABLE_GRADES),
                    key=lambda p: (-p[1].score, p[0].id))
    lines, evidence = [], []
    for doc, grade in usable:
        sentences = [re.sub(r"^\s*(?:#+|[-*•]|\d+\.)\s*", "", s).strip() for s in split_sentences(doc.text)]
        sentences = [s for s in sentences if len(s) >= 12] or [doc.text.strip()]
        best = max(sentences, key=lambda s: (bool(focus) and focus.casefold() in s.casefold(),
                                             len(terms & set(tokenize(s))), -len(s)))
        line = f"{short(best, 180)} [{doc.id}]"
        evidence.append({"id": doc.id, "source": doc.source, "tool": doc.tool, "label": grade.label,
                         "score": round(float(grade.score), 4), "reason": grade.reason, "line": line})
        if len(lines) < SUMMARY_LINES and doc.id not in known:  # only what this hop newly found
            lines.append(line)
    if not lines and evidence:
        lines = [f"no new findings: already summarized [{', '.join(e['id'] for e in evidence[:3])}]"]
    elif not lines:
        lines = [f"nothing usable: {len(docs)} document(s), none graded correct or ambiguous"]
    return lines, evidence


def failure_signal(strategy: str, ok: bool, note: str, docs: list[Retrieved], grades: list[Grade]) -> str:
    """The route's failure signal (seed 002), or "" when the hop did not fail."""
    if not ok:
        return f"{strategy} failed: {note}"
    if not docs:
        return f"{strategy} returned nothing"
    if strategy == "sql":
        meta = docs[0].metadata or {}
        if meta.get("empty"):
            return "the SQL query returned no rows"
        if not meta.get("on_target"):
            return f"the SQL result is {meta.get('target_reason') or 'suspect'}"
        return ""
    if all(g.label == "incorrect" for g in grades):
        return f"every {strategy} document was graded incorrect"
    return ""


def detect_repetition(notes: list[HopNote], similarity: Callable[[str, str], float | None],
                      threshold: float) -> tuple[str, str] | None:
    """(how, why) when the last hop repeats: its query is as similar as ``threshold`` (embedding cosine; equal
    normalized text counts as 1.0) to an earlier query on the same tool, or its ids overlap the previous hop's
    (Jaccard ≥ 0.8). None otherwise."""
    if len(notes) < 2:
        return None
    current = notes[-1]
    for earlier in notes[:-1]:
        if earlier.strategy != current.strategy:
            continue
        if normalize_query(earlier.query) == normalize_query(current.query):
            sim: float | None = 1.0
        else:
            sim = similarity(earlier.query, current.query)
        if sim is not None and sim >= threshold:
            return ("query_similarity", f"hop {current.number}'s query repeats hop {earlier.number}'s on "
                    f"{current.strategy} (embedding cosine {sim:.3f} ≥ {threshold})")
    previous = notes[-2]
    if current.ids and previous.ids:
        overlap = jaccard(set(current.ids), set(previous.ids))
        if overlap >= JACCARD_REPEAT:
            return ("id_overlap", f"hop {current.number} retrieved nearly the same documents as hop {previous.number} "
                    f"(id overlap {overlap:.2f} ≥ {JACCARD_REPEAT})")
    return None


def decide_after_hop(notes: list[HopNote], kind: str, settings: Settings, recovered: bool,
                     recovery_target: str | None, similarity: Callable[[str, str], float | None]
                     ) -> tuple[NextAction, str, str, str, dict[str, Any]]:
    """(action, next strategy, reason, stop reason, details) after the last hop, checks in this order: enough
    evidence → the route's failure signal (one recovery hop) → repetition → hop limit → rewrite and search again."""
    current, threshold = notes[-1], settings.threshold
    limit = hop_limit(settings, kind)
    counted = sum(1 for n in notes if not n.recovery)
    details: dict[str, Any] = {"hop_limit": limit, "hops_counted": counted, "recovery_used": recovered}
    k = max(1, min(settings.evidence_top_k, len(current.ids)))
    top = current.usable_scores[:k]
    clean = current.status == "ok" and not current.failure_signal
    if clean and len(top) >= k and all(s >= threshold for s in top):
        shown = ", ".join(f"{s:.2f}" for s in top)
        return ("generate", current.strategy, f"enough evidence: the top {k} grade score(s) ({shown}) are all ≥ "
                f"threshold {threshold:.2f}: stop early", "enough_evidence", details)
    if clean and top and top[0] >= threshold and current.quality >= threshold:
        # two signals agree instead of two documents: the best document and the whole context's quality (a
        # two-fact graph path has one strong fact and a weaker, farther one)
        return ("generate", current.strategy, f"enough evidence: the best grade score {top[0]:.2f} and the context "
                f"quality {current.quality:.2f} are both ≥ threshold {threshold:.2f}: stop early", "enough_evidence",
                details)
    where = current.failure_signal or (f"top {k} grade score(s) {[round(s, 2) for s in top]} not all ≥ "
                                       f"{threshold:.2f}")
    if current.failure_signal and not recovered and recovery_target:
        return ("recover", recovery_target, f"{current.failure_signal}: the route's failure signal → one recovery "
                f"hop to {recovery_target}", "", details)
    repeated = detect_repetition(notes, similarity, settings.repeat_similarity)
    if repeated:
        details["repetition_by"] = repeated[0]
        if current.status == "ok":
            current.status = "repeated"
        met = [n for n in notes if n.status != "failed" and n.evidence and n.quality >= threshold]
        if met:
            return ("generate", current.strategy, f"{where}; {repeated[1]}: stop — hop {met[-1].number} met the "
                    "threshold: answer from the evidence gathered", "repetition", details)
        return "partial_answer", current.strategy, f"{where}; {repeated[1]}: stop", "repetition", details
    if counted >= limit:
        met = [n for n in notes if n.status != "failed" and n.evidence and n.quality >= threshold]
        if met:
            return ("generate", current.strategy, f"{where}; hop limit {limit} of a {kind or 'lookup'} question "
                    f"reached — hop {met[-1].number} met the threshold: answer from the evidence gathered",
                    "hop_limit", details)
        return ("partial_answer", current.strategy, f"{where}; hop limit {limit} of a {kind or 'lookup'} question "
                "reached: say what was verified and what was not found", "hop_limit", details)
    if current.status == "failed" and recovered:
        return ("partial_answer", current.strategy, f"{where}; the recovery hop is used and this route fails: stop",
                "route_failed", details)
    return ("rewrite_query", current.strategy, f"{where}; hop {counted} of {limit}: rewrite the query and search "
            f"{current.strategy} again", "", details)


# ---- tool calls ----------------------------------------------------------------------------------------------------

@dataclass
class HopResult:
    docs: list[Retrieved]
    status: str  # ok | failed
    note: str
    details: dict[str, Any] = field(default_factory=dict)
    calls: list[Any] = field(default_factory=list)


def run_sql_hop(tools: dict[str, Any], engine: Any, question: str, query: str, top_k: int,
                given_sql: str | None = None) -> HopResult:
    """One sql hop: the query from ``given_sql``, the llm engine (from the schema) or the offline templates;
    validated before it runs. A refusal is a failed hop whose note is the reason (and the refused SQL is kept)."""
    from rag.tools.sql import SqlRefused, write_sql_with_model

    tool = tools.get("sql")
    if tool is None:
        return HopResult([], "failed", "no 'sql' tool is configured")
    if not hasattr(tool, "run_sql"):  # another RetrievalTool registered as "sql": its own run(query)
        outcome = retrieve_with(tools, "sql", query, top_k)
        return HopResult(outcome.docs, "ok" if outcome.ok else "failed", outcome.note)
    ok, why = tool.available()
    if not ok:
        return HopResult([], "failed", f"the sql tool is unavailable: {why}")
    sql, origin, reason, calls = given_sql, "given", "", []
    try:
        if sql is None and getattr(engine, "name", "") == "llm" and hasattr(engine, "_call"):
            sql, reason, calls = write_sql_with_model(engine, question, tool.tables())
            origin = "model"
            if not sql:
                return HopResult([], "failed", f"the model wrote no SQL: {reason}", {"origin": origin}, calls)
        if sql is None:
            plan = tool.plan(query)
            sql, origin, reason = plan.sql, "template", f"template {plan.template}: {plan.reason}"
        docs = tool.run_sql(question, sql, origin, reason)
    except SqlRefused as exc:
        return HopResult([], "failed", str(exc), {"sql": sql, "origin": origin, "plan": reason, "refused": True},
                         calls)
    except ToolUnavailable as exc:
        return HopResult([], "failed", f"the sql tool is unavailable: {exc}", {"sql": sql}, calls)
    meta = docs[0].metadata if docs else {}
    details = {k: meta.get(k) for k in ("sql", "columns", "rows", "on_target", "target_reason", "origin", "plan",
                                        "notes", "empty")}
    return HopResult(docs, "ok", f"SQL ({origin}) returned {meta.get('n_rows', 0)} row(s); "
                                 f"{meta.get('target_reason', '')}", details, calls)


def run_hop(ctx: ReactContext, strategy: str, question: str, query: str) -> HopResult:
    if strategy == "sql":
        return run_sql_hop(ctx.tools, ctx.engine, question, query, ctx.settings.top_k)
    outcome = retrieve_with(ctx.tools, strategy, query, ctx.settings.top_k)
    return HopResult(outcome.docs, "ok" if outcome.ok else "failed", outcome.note)


def grade_hop(ctx: ReactContext, question: str, docs: list[Retrieved]) -> list[Grade]:
    from rag.tools.sql import grade_sql_result

    return [clean_grade(grade_sql_result(d) if d.tool == "sql" else ctx.engine.grade(question, d)) for d in docs]


def hop_quality(ctx: ReactContext, question: str, docs: list[Retrieved], grades: list[Grade]) -> tuple[float, str,
                                                                                                       list]:
    if not docs:
        return 0.0, "no documents", []
    if all(d.tool == "sql" for d in docs):
        best = max(g.score for g in grades)
        return best, f"SQL result graded {best:.2f} from its query", []
    result = ctx.engine.evaluate(question, docs, grades)
    return clamp01(result.score), result.reason, list(result.calls)


def make_note(ctx: ReactContext, state: dict, number: int, strategy: str, query: str, result: HopResult,
              grades: list[Grade], quality: float, target: str = "", recovery: bool = False) -> HopNote:
    docs = result.docs
    for doc in docs:  # kept outside the state for the final re-fetch of what is not a chunk
        ctx.cache[doc.id] = doc
    known = {e["id"] for n in state.get("notes") or [] for e in n.evidence}
    lines, evidence = summarize_hop(state["question"] if not target else query, docs, grades, focus=target,
                                    known=known)
    if result.status != "ok":
        lines = [f"{strategy} failed: {short(result.note, 160)}"]
    signal = failure_signal(strategy, result.status == "ok", result.note, docs, grades)
    return HopNote(number=number, strategy=strategy, query=query, target=target, recovery=recovery,
                   status=result.status, note="" if result.status == "ok" else result.note, lines=lines,
                   evidence=evidence, ids=[d.id for d in docs],
                   usable_scores=sorted((e["score"] for e in evidence), reverse=True), quality=quality,
                   failure_signal=signal, raw_tokens=sum(estimate_tokens(d.text) for d in docs),
                   summary_tokens=sum(estimate_tokens(x) for x in lines), details=dict(result.details))


def context_sizes(question: str, notes: list[HopNote]) -> tuple[int, int]:
    """(tokens with hop summaries, tokens if every hop's raw documents were kept) after these hops."""
    base = estimate_tokens(question)
    return base + sum(n.summary_tokens for n in notes), base + sum(n.raw_tokens for n in notes)


def refetch(ctx: ReactContext, evidence: list[dict[str, Any]]) -> tuple[list[Retrieved], list[Grade], dict]:
    """The cited documents again, by id: chunks from the knowledge base, the rest from the hop cache."""
    docs, grades, where = [], [], {"knowledge_base": [], "hop_cache": [], "missing": []}
    seen: set[str] = set()
    for item in sorted(evidence, key=lambda e: -e["score"]):
        if item["id"] in seen:
            continue
        seen.add(item["id"])
        doc = None
        if item["tool"] == "vector" and ctx.kb is not None and hasattr(ctx.kb, "get_chunk"):
            try:
                chunk = ctx.kb.get_chunk(item["id"])
            except (RagError, OSError):
                chunk = None
            if chunk is not None:
                doc = Retrieved(id=chunk.chunk_id, text=chunk.text, source=chunk.source, score=item["score"],
                                tool="vector", doc_id=chunk.doc_id, chunk_index=chunk.index)
                where["knowledge_base"].append(item["id"])
        if doc is None and item["id"] in ctx.cache:
            doc = ctx.cache[item["id"]]
            where["hop_cache"].append(item["id"])
        if doc is None:
            where["missing"].append(item["id"])
            continue
        docs.append(doc)
        grades.append(Grade(item["label"], item["score"], item.get("reason", "")))
    return docs, grades, where


# ---- routing functions (pure) ---------------------------------------------------------------------------------------

def route_after_think(state: ReactState):
    if state["strategy"] == "direct":
        return DIRECT_GENERATE
    if state.get("kind") == "comparison" and len(state.get("targets") or []) >= 2:
        return [Send(RETRIEVE_TARGET, {"question": state["question"], "target": t["target"], "query": t["query"],
                                       "strategy": t["strategy"], "number": i + 1, "kind": "comparison"})
                for i, t in enumerate(state["targets"])]
    return ACT


def route_after_observe(state: ReactState) -> Literal["generate", "recover", "rewrite_query", "partial_answer"]:
    return {"generate": GENERATE, "recover": RECOVER, "rewrite_query": REWRITE_QUERY,
            "partial_answer": PARTIAL_ANSWER}[state["next_action"]]  # type: ignore[return-value]


# ---- nodes ----------------------------------------------------------------------------------------------------------

def think(state: ReactState, runtime: Ctx) -> dict:
    """Thought: the engine classifies the question (route, kind, comparison targets)."""
    from rag.engines.offline.kinds import comparison_targets, sub_question

    ctx, question = runtime.context, state["question"]
    with StepTimer() as timer:
        entities = list(ctx.known_entities())
        decision = ctx.engine.classify(question, entities)
        strategy = str(decision.strategy).strip().lower()
        kind = str(getattr(decision, "kind", "") or "").strip().lower()
        reason = decision.reason
        if not kind:  # an engine that names no kind: the tool it chose says it (seed 002's table)
            kind = {"sql": "aggregate", "web": "recent", "direct": ""}.get(strategy, "lookup")
            reason += f"; kind {kind or 'none'} from the chosen tool"
        if strategy not in (*TOOLS, "direct"):
            reason = f"unknown strategy {decision.strategy!r} from the engine, using vector; {reason}"
            strategy = "vector"
        if kind == "aggregate" and strategy not in ("sql", "direct"):
            reason += f"; aggregate → sql (seed 002), not {strategy}"
            strategy = "sql"
        targets: list[dict[str, str]] = []
        if kind == "comparison" and strategy != "direct":
            names = list(decision.signals.get("targets") or [])
            if len(names) < 2:
                names, _ = comparison_targets(question, [e for e in entities if e.casefold() in question.casefold()])
            names = names[: ctx.settings.hop_limit_comparison]
            for name in names:
                sub = sub_question(question, name, names)
                targets.append({"target": name, "query": sub, "strategy": target_route(ctx, sub, name)})
            if len(targets) < 2:
                reason += "; fewer than two comparison targets found: searched as one lookup"
                kind = "lookup"
                targets = []
    limit = hop_limit(ctx.settings, kind)
    step = make_step(THINK, timer, index=index_of(state),
                     inputs={"question": question, "known_entities": len(entities)},
                     output={"strategy": strategy, "kind": kind, "hop_limit": limit, "targets": targets,
                             "kind_reason": decision.signals.get("kind_reason"), "signals": dict(decision.signals)},
                     decision=f"{kind or 'direct'} → {strategy}" if not targets else
                     f"comparison → {len(targets)} targets", reason=reason, model_calls=decision.calls)
    return {"route": strategy, "strategy": strategy, "kind": kind, "targets": targets, "query": question,
            "steps": [step]}


def recovery_route(ctx: ReactContext, failed: str, question: str) -> str | None:
    """Where the one recovery hop goes: to sql when a document route (vector, graph) failed on a question whose
    words name a table's numeric column (the misrouted aggregate of seed 002), else the next route (``RECOVERY``);
    None when that tool is not there."""
    if failed in ("vector", "graph") and table_plan(ctx, question) is not None:
        return "sql"
    target = RECOVERY.get(failed)
    return target if target in ctx.tools else None


def table_plan(ctx: ReactContext, question: str) -> Any:
    """The offline SQL plan for ``question`` when the tables can answer it (a numeric column is named), else None."""
    tool = ctx.tools.get("sql")
    plan = getattr(tool, "plan", None)
    if plan is None or not tool.available()[0]:
        return None
    from rag.tools.sql import SqlRefused

    try:
        found = plan(question)
    except (SqlRefused, RagError):
        return None
    return found if found.has_measure else None


def target_route(ctx: ReactContext, sub: str, target: str) -> str:
    """sql when the tables hold the target and a number the sub-question names; else vector (seed 002)."""
    found = table_plan(ctx, sub)
    if found is None:
        return "vector"
    named = any(target.casefold() in v.casefold() or v.casefold() in target.casefold() for v in found.values)
    return "sql" if named else "vector"


def act(state: ReactState, runtime: Ctx) -> dict:
    """Action: one tool call with the current route and query."""
    ctx = runtime.context
    hop, strategy, query = int(state.get("hop") or 0) + 1, state["strategy"], state["query"]
    with StepTimer() as timer:
        result = run_hop(ctx, strategy, state["question"], query)
    step = make_step(ACT, timer, index=index_of(state), attempt=hop,
                     inputs={"query": query, "strategy": strategy, "top_k": ctx.settings.top_k},
                     output={"n_documents": len(result.docs), "ids": [d.id for d in result.docs], **result.details},
                     decision="ok" if result.status == "ok" else "failed", reason=result.note,
                     status=result.status, model_calls=result.calls, documents=doc_records(result.docs, hop))
    return {"hop": hop, "docs": result.docs, "hop_ok": result.status == "ok", "hop_note": result.note,
            "hop_details": result.details, "steps": [step]}


def observe(state: ReactState, runtime: Ctx) -> dict:
    """Observation: grade, summarize the hop into 2–3 lines (raw documents dropped), record the context size, and
    decide what comes next (``decide_after_hop``)."""
    ctx, question = runtime.context, state["question"]
    hop, strategy, docs = int(state["hop"]), state["strategy"], list(state.get("docs") or [])
    recovered = bool(state.get("recovered"))
    with StepTimer() as timer:
        grades = grade_hop(ctx, question, docs)
        quality, why, calls = hop_quality(ctx, question, docs, grades)
        result = HopResult(docs, "ok" if state.get("hop_ok", True) else "failed", state.get("hop_note", ""),
                           dict(state.get("hop_details") or {}))
        is_recovery = recovered and state.get("next_action") == "recover"
        note = make_note(ctx, state, hop, strategy, state["query"], result, grades, quality, recovery=is_recovery)
        if (not note.failure_signal and not recovered and strategy in ("vector", "graph")
                and not any(e["label"] == "correct" for e in note.evidence)):
            plan = table_plan(ctx, question)  # a misrouted aggregate question (seed 002's worst silent failure)
            if plan is not None:
                note.failure_signal = (f"no {strategy} document graded correct, while table {plan.table} holds what "
                                       f"the question names ({short(plan.reason, 160)})")
        notes = [*(state.get("notes") or []), note]
        with_summaries, without = context_sizes(question, notes)
        target = recovery_route(ctx, strategy, question) if note.failure_signal and not recovered else None
        action, nxt, reason, stop, details = decide_after_hop(notes, state.get("kind") or "lookup", ctx.settings,
                                                               recovered, target, ctx.similarity)
    counts = grade_counts(grades)
    step = make_step(OBSERVE, timer, index=index_of(state), attempt=hop,
                     inputs={"question": question, "query": state["query"], "strategy": strategy,
                             "n_documents": len(docs), "threshold": ctx.settings.threshold},
                     output={**counts, "quality": round(quality, 4), "quality_reason": why,
                             "top_scores": note.usable_scores[:5], "failure_signal": note.failure_signal or None,
                             "summary": note.lines, "summary_ids": [e["id"] for e in note.evidence],
                             "context_tokens": with_summaries, "context_tokens_without_summaries": without,
                             "hop_raw_tokens": note.raw_tokens, "next_action": action, "next_strategy": nxt,
                             "stop_reason": stop or None, **details},
                     decision=action, reason=reason, model_calls=[*(c for g in grades for c in g.calls), *calls],
                     documents=doc_records(docs, hop, grades))
    return {"docs": [], "notes": [note], "attempts": [note.to_attempt(ctx.settings.threshold)], "next_action": action,
            "next_strategy": nxt, "action_reason": reason, "stop_reason": stop, "steps": [step]}


def recover(state: ReactState, runtime: Ctx) -> dict:
    """The route failed: one recovery hop to another route, with the original question."""
    with StepTimer() as timer:
        target = state["next_strategy"]
    step = make_step(RECOVER, timer, index=index_of(state), attempt=int(state.get("hop") or 0),
                     inputs={"from": state["strategy"]}, output={"strategy": target, "query": state["question"]},
                     decision=target, reason=state.get("action_reason", ""))
    return {"strategy": target, "query": state["question"], "recovered": True, "steps": [step]}


def rewrite_query(state: ReactState, runtime: Ctx) -> dict:
    """Thought again: a new query for the same route, from the hop summaries (the raw documents are gone)."""
    ctx, question, query = runtime.context, state["question"], state["query"]
    notes = state.get("notes") or []
    summary_docs = [Retrieved(id=f"note:{n.number}", text="\n".join(n.lines), source="hop summary", score=0.0,
                              tool=n.strategy) for n in notes[-1:]]
    with StepTimer() as timer:
        result = ctx.engine.rewrite(question, query, summary_docs,
                                    [Grade("ambiguous", 0.5, "hop summary") for _ in summary_docs])
    new_query = " ".join(str(result.query or "").split()) or query
    step = make_step(REWRITE_QUERY, timer, index=index_of(state), attempt=int(state.get("hop") or 0),
                     inputs={"question": question, "query": query, "strategy": state["next_strategy"]},
                     output={"query": new_query}, decision=new_query,
                     reason=result.reason or state.get("action_reason", ""), model_calls=result.calls)
    return {"query": new_query, "strategy": state["next_strategy"], "steps": [step]}


def retrieve_target(state: ReactState, runtime: Ctx) -> dict:
    """One comparison target: one retrieval (sql or vector), graded and summarized (a Send branch)."""
    ctx, target, query, strategy = runtime.context, state["target"], state["query"], state["strategy"]
    number = int(state.get("number") or 1)
    with StepTimer() as timer:
        result = run_hop(ctx, strategy, query, query)
        grades = grade_hop(ctx, query, result.docs)
        quality, why, calls = hop_quality(ctx, query, result.docs, grades)
        note = make_note(ctx, state, number, strategy, query, result, grades, quality, target=target)
    ok = note.status == "ok" and bool(note.evidence)
    step = make_step(RETRIEVE_TARGET, timer, attempt=number,
                     inputs={"target": target, "query": query, "strategy": strategy},
                     output={"n_documents": len(result.docs), "summary": note.lines,
                             "summary_ids": [e["id"] for e in note.evidence], "quality": round(quality, 4),
                             "hop_raw_tokens": note.raw_tokens, "summary_tokens": note.summary_tokens,
                             "failure_signal": note.failure_signal or None, **result.details},
                     decision="found" if ok else "not found", reason=f"{target}: {result.note}; {why}",
                     status="ok" if result.status == "ok" else "failed",
                     model_calls=[*result.calls, *(c for g in grades for c in g.calls), *calls],
                     documents=doc_records(result.docs, number, grades))
    return {"notes": [note], "attempts": [note.to_attempt(ctx.settings.threshold)], "steps": [step]}


def compare(state: ReactState, runtime: Ctx) -> dict:
    """Merge the targets side by side, each line citing its own evidence; a side without evidence says so."""
    ctx, question = runtime.context, state["question"]
    notes = sorted((n for n in state.get("notes") or [] if n.target), key=lambda n: n.number)
    ko = korean(question)
    with StepTimer() as timer:
        lines, citations, missing, used = [], [], [], []
        for note in notes:
            named = [e for e in note.evidence if note.target.casefold() in e["line"].casefold()]
            best = (named or note.evidence)[0] if note.evidence and not note.failure_signal else None
            if best is None:
                missing.append(note.target)
                lines.append(f"- {note.target}: " + ("문서와 표에서 찾지 못했습니다." if ko else
                                                      "not found in the documents or tables."))
                continue
            docs, _grades, where = refetch(ctx, [best])
            used.append(where)
            doc = docs[0] if docs else ctx.cache.get(best["id"])
            text = re.sub(r"\s*\[[^\]]+\]$", "", best["line"])
            numbers = [i for i, c in enumerate(citations, 1) if c.id == best["id"]]  # both sides in one chunk
            if not numbers:
                citations.append(Citation(id=best["id"], source=best["source"], text=doc.text if doc else text,
                                          doc_id=doc.doc_id if doc else None,
                                          chunk_index=doc.chunk_index if doc else None))
                numbers = [len(citations)]
            shown = text if text.casefold().startswith(note.target.casefold()) else f"{note.target}: {text}"
            lines.append(f"- {shown} [{numbers[0]}]")
        head = "비교 (나란히):" if ko else "Side by side:"
        text = "\n".join([head, *lines])
        if missing:
            text += "\n" + ((f"찾지 못한 것: {', '.join(missing)}") if ko else f"Not found: {', '.join(missing)}")
        context = "\n".join(f"[{i}] {c.source}\n{c.text}" for i, c in enumerate(citations, 1))
        answer = Answer(text=text, citations=citations, abstained=not citations,
                        reason=f"side-by-side from {len(notes)} target retrieval(s); {len(missing)} without evidence",
                        context=context, prompt=[{"role": "system", "content": "react compare: one line per target "
                                                  "from its hop summary, each citing its own source"},
                                                 {"role": "user", "content": question}])
    stop = "comparison_partial" if missing else "comparison"
    step = make_step(COMPARE, timer, index=index_of(state),
                     inputs={"question": question, "targets": [n.target for n in notes],
                             "refetched": used},
                     output=answer_output(answer), decision="partial" if missing else "answered",
                     reason=answer.reason)
    return {"answer": answer, "stop_reason": stop, "steps": [step]}


def _evidence(notes: list[HopNote], only: list[HopNote] | None = None) -> list[dict[str, Any]]:
    return [e for n in (only if only is not None else notes) for e in n.evidence]


def generate(state: ReactState, runtime: Ctx) -> dict:
    """Answer from the cited evidence, re-fetched by id (the raw documents were dropped after each hop)."""
    ctx, question, threshold = runtime.context, state["question"], runtime.context.settings.threshold
    notes = state.get("notes") or []
    good = [n for n in notes if n.status != "failed" and n.evidence and not n.failure_signal
            and (n.quality >= threshold or state.get("stop_reason") == "enough_evidence")] or notes[-1:]
    with StepTimer() as timer:
        docs, grades, where = refetch(ctx, _evidence(notes, good)[: 2 * ctx.settings.top_k])
        answer = ctx.engine.generate(question, docs, grades, mode="answer")
    step = make_step(GENERATE, timer, index=index_of(state), attempt=int(state.get("hop") or 0),
                     inputs={"question": question, "hops_used": [n.number for n in good], "n_documents": len(docs),
                             "doc_ids": [d.id for d in docs], "refetched": where,
                             "context_tokens": sum(estimate_tokens(d.text) for d in docs)},
                     output=answer_output(answer), decision="abstained" if answer.abstained else "answered",
                     reason=answer.reason, model_calls=answer.calls)
    return {"answer": answer, "steps": [step]}


def partial_answer(state: ReactState, runtime: Ctx) -> dict:
    """Stopped (repetition, hop limit, a failing route): what the hops verified, each with its source, and what was
    not found — built from the hop summaries, so facts from early hops are not lost."""
    ctx, question = runtime.context, state["question"]
    notes = state.get("notes") or []
    ko = korean(question)
    with StepTimer() as timer:
        docs, grades, where = refetch(ctx, _evidence(notes)[: 2 * ctx.settings.top_k])
        answer = ctx.engine.generate(question, docs, grades, mode="partial")
        verified = list(dict.fromkeys(e["line"] for n in notes for e in n.evidence if e["label"] == "correct"))
        not_found = [f"{n.strategy} hop {n.number} ({short(n.query, 60)}): {n.failure_signal or n.note}"
                     for n in notes if not n.evidence or n.failure_signal]
        block = ["", "확인한 사실 (홉 요약):" if ko else "Verified facts (hop summaries):"]
        block += [f"- {line}" for line in verified] or ["- " + ("없음" if ko else "none")]
        block += ["찾지 못한 것:" if ko else "Not found:"]
        block += [f"- {item}" for item in not_found] or ["- " + ("질문에 대한 충분한 근거" if ko else
                                                            "enough evidence to answer the whole question")]
        answer = Answer(text=(answer.text or "").rstrip() + "\n" + "\n".join(block), citations=answer.citations,
                        abstained=answer.abstained, reason=answer.reason, calls=answer.calls,
                        context=answer.context, prompt=answer.prompt)
    step = make_step(PARTIAL_ANSWER, timer, index=index_of(state), attempt=int(state.get("hop") or 0),
                     inputs={"question": question, "stop_reason": state.get("stop_reason"),
                             "hops": [n.number for n in notes], "doc_ids": [d.id for d in docs], "refetched": where},
                     output={**answer_output(answer), "verified": verified, "not_found": not_found},
                     decision=state.get("stop_reason") or "partial",
                     reason=f"{state.get('action_reason', '')}. {answer.reason}".strip(". "), model_calls=answer.calls)
    return {"answer": answer, "steps": [step]}


def direct_generate(state: ReactState, runtime: Ctx) -> dict:
    """No retrieval needed (translation, arithmetic, code syntax)."""
    return answer_directly(DIRECT_GENERATE, state, runtime.context.engine)


# ---- the graph ------------------------------------------------------------------------------------------------------

def build_graph():
    """Assemble and compile the react graph (it reads like the diagram above)."""
    graph = StateGraph(ReactState, context_schema=ReactContext)
    for node in (think, act, observe, recover, rewrite_query, retrieve_target, compare, generate, partial_answer,
                 direct_generate):
        graph.add_node(node.__name__, guarded(node.__name__, node))
    graph.add_edge(START, THINK)
    graph.add_conditional_edges(THINK, route_after_think, [DIRECT_GENERATE, ACT, RETRIEVE_TARGET])
    graph.add_edge(ACT, OBSERVE)
    graph.add_conditional_edges(OBSERVE, route_after_observe)
    graph.add_edge(RECOVER, ACT)
    graph.add_edge(REWRITE_QUERY, ACT)
    graph.add_edge(RETRIEVE_TARGET, COMPARE)
    for node in (COMPARE, GENERATE, PARTIAL_ANSWER, DIRECT_GENERATE):
        graph.add_edge(node, END)
    return graph.compile()


def recursion_limit(settings: Settings) -> int:
    """Safety net above the hop limits: think, 3 nodes per hop (act, observe, rewrite/recover), the recovery hop and
    the final node, with slack."""
    most = max(settings.hop_limit_lookup, settings.hop_limit_aggregate, settings.hop_limit_recent,
               settings.hop_limit_comparison)
    return 3 * (most + 1) + 10


NOTES = {
    THINK: ("생각: 질문의 종류(단순 조회·비교·집계·최신)와 처음 쓸 도구를 정합니다. 비교면 대상마다 따로 찾습니다.",
            "Thought: decides the kind of question (lookup, comparison, aggregate, recent) and the first tool; a "
            "comparison is searched once per target."),
    ACT: ("행동: 도구 하나를 부릅니다 — 벡터, 그래프, 웹, 또는 SQL(검증을 통과한 SELECT 하나만).",
          "Action: one tool call — vector, graph, web, or SQL (one validated SELECT only)."),
    OBSERVE: ("관찰: 결과를 채점하고 두세 줄로 요약해 원문은 버립니다. 근거 충분·반복·홉 상한·경로 실패 중 무엇이 걸렸는지 기록합니다.",
              "Observation: grades the result, keeps a 2–3 line summary with source ids and drops the raw text; "
              "records which stop condition fired (enough evidence, repetition, hop limit, a failing route)."),
    RECOVER: ("경로가 실패 신호를 냈습니다(빈 SQL 결과, 엉뚱한 표, 전부 틀림). 다른 경로로 딱 한 번 옮깁니다.",
              "The route gave its failure signal (no rows, an off-target table, everything incorrect): one recovery "
              "hop to another route, once."),
    REWRITE_QUERY: ("요약만 보고 검색어를 다시 씁니다. 홉 상한이 무한 루프를 막습니다.",
                    "Rewrites the query from the hop summaries; the hop limit stops endless loops."),
    RETRIEVE_TARGET: ("비교 대상 하나를 따로 찾습니다(LangGraph Send로 대상마다 동시에).",
                      "Searches one comparison target (LangGraph Send: one branch per target)."),
    COMPARE: ("대상별 근거를 나란히 놓고 각자 출처를 붙입니다. 못 찾은 쪽은 못 찾았다고 씁니다.",
              "Puts each target's evidence side by side, each with its own citation; a side without evidence says "
              "so."),
    GENERATE: ("인용할 근거만 다시 꺼내(re-fetch) 답을 씁니다 — 홉마다 쌓인 원문 조각은 이미 버렸습니다.",
               "Re-fetches only the cited evidence and answers — the raw chunks of each hop were already dropped."),
    PARTIAL_ANSWER: ("멈춘 이유와 함께, 확인한 사실과 찾지 못한 것을 나눠 말합니다.",
                     "Says why it stopped, what was verified (with sources) and what was not found."),
    DIRECT_GENERATE: ("검색 없이 바로 답합니다.", "Answers without retrieval."),
}
SUBTITLES = {THINK: "생각 · thought", ACT: "행동 · action", OBSERVE: "관찰 · observe", RECOVER: "회복 · recover",
             REWRITE_QUERY: "질문 다시 쓰기 · rewrite", RETRIEVE_TARGET: "대상별 검색 · per target",
             COMPARE: "나란히 비교 · compare", GENERATE: "답변 생성 · answer", PARTIAL_ANSWER: "부분 답변 · partial",
             DIRECT_GENERATE: "바로 답변 · direct"}


class ReactVariant:
    name = "react"

    @staticmethod
    def step_limit(settings: Settings) -> int:
        """The graph's recursion_limit for a run (and for a what-if fork of one) under these settings."""
        return recursion_limit(settings)
    label = "ReAct (multi-tool)"
    description = ("think → act (vector / graph / web / sql) → observe, with question kinds, per-kind hop limits, "
                   "stop conditions (enough evidence, repetition, hop limit, partial answer) and hop summaries; "
                   "comparisons fan out one retrieval per target")
    build_graph = staticmethod(build_graph)
    answer_nodes = (GENERATE, PARTIAL_ANSWER, COMPARE, DIRECT_GENERATE)
    loop_nodes = (RECOVER, REWRITE_QUERY)
    notes = NOTES
    subtitles = SUBTITLES
    min_calls = "1 + N + 1 + 1 per hop (classify, grade each of N, evaluate, generate); SQL hops grade from the query"
    prevents = {"F1": "every document graded; SQL results judged on-target or suspect",
                "F5": "hop limit per kind, repetition by query similarity and by id overlap",
                "F6": "classify can route 'direct'",
                "F7": "partial answer: verified facts and what was not found"}
    leaves_open = {"F3": "no check of the answer against the context", "F4": "no check of the answer itself"}

    def run(self, question: str, kb: KnowledgeBaseLike, engine: DecisionEngine, settings: Settings,
            on_step: OnStep | None = None) -> Run:
        from rag.variants import registry

        recorder = TraceRecorder(question, self.name, engine, settings, on_step)
        run = recorder.run
        try:
            ctx = ReactContext(engine=engine, tools=kb.tools(), settings=settings, kb=kb,
                               known_entities=kb.known_entities)
            graph = registry.compiled_graph(self.name) or build_graph()
        except Exception as exc:
            recorder.fail(f"the variant could not start: {error_text(exc)}")
            return recorder.finish()
        limit = self.step_limit(settings)
        outcome = stream_graph(graph, {"question": question, "query": question, "hop": 0}, ctx, recorder, limit)
        final = outcome.final
        run.route = final.get("route")
        run.attempts = list(final.get("attempts") or [])
        if outcome.hit_limit and run.error is None:
            recorder.fail(f"the graph hit its step limit ({limit} steps)")
        if run.error is None:
            answer = final.get("answer")
            run.stop_reason = final.get("stop_reason") or ""
            if answer is not None:
                apply_answer(run, answer)
            run.partial = run.path[-1:] == [PARTIAL_ANSWER] or run.stop_reason == "comparison_partial"
        return recorder.finish()
