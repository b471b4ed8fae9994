"""Shared widgets: tables, citations, step details, run summaries. They render the recorded trace only."""
from __future__ import annotations

import json
import re
from typing import Any, Callable

import pandas as pd
import streamlit as st

from rag.trace import Run, Step
from rag.types import MATCHED_FOR, context_of
from rag_ui import diagram, notes
from rag_ui.charts import quality_chart, quality_frame
from rag_ui.state import TEACHING_NOTES

GRADE_ICON = {"correct": "✅ correct", "ambiguous": "🟡 ambiguous", "incorrect": "❌ incorrect"}
# a chunk the answer read next to a usable one (rag.variants.base.with_context_neighbours): never graded
CONTEXT_LABEL = "📎 context, not graded"
STATE_ICON = {"active": "🟢 active", "not configured": "⚪ not configured", "error": "🔴 error"}


# ---- untrusted text ---------------------------------------------------------------------------------------------
# Document text (and answers and reasons built from it) is shown as escaped Markdown: `![x](http://…)` must stay
# text, or the browser fetches it (a tracking pixel); links, HTML, code, `:red[…]` directives, a leading "#" heading
# or ">" quote, and `$…$` LaTeX likewise. (Emphasis such as *a* is left alone: it loads nothing.)
_MARKDOWN_SPECIAL = re.compile(r"([\\`\[\]<>!$])")
_LINE_START = re.compile(r"(?m)^(\s*)([#>+=-])")


def md_escape(text: Any) -> str:
    """``text`` as Markdown that loads nothing and opens no link: no image, link, HTML, code, heading or LaTeX."""
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", str(text if text is not None else ""))
    return _LINE_START.sub(r"\1\\\2", escaped)


def code_span(text: Any) -> str:
    """``text`` inside backticks (Markdown is not parsed there), without a backtick that would end the span."""
    return "`" + str(text if text is not None else "").replace("`", "'") + "`"


# ---- knowledge base --------------------------------------------------------------------------------------------
def backend_status_frame(kb) -> pd.DataFrame:
    rows = [{"component": s.component, "backend": s.backend, "state": STATE_ICON.get(s.state, s.state),
             "detail": s.detail, "how to enable": s.how_to_enable} for s in kb.status()]
    return pd.DataFrame(rows, columns=["component", "backend", "state", "detail", "how to enable"])


def kb_counts(kb) -> None:
    counts = kb.counts()
    cols = st.columns(4)
    for col, (label, key) in zip(cols, (("Documents · 문서", "documents"), ("Chunks · 청크", "chunks"),
                                        ("Entities · 개체", "entities"), ("Relations · 관계", "relations"))):
        col.metric(label, counts.get(key, 0))


def plain_error(name: str, error: str | None) -> str:
    """The error without a leading "name: " (the file is named next to it already: no "a.exe: a.exe: …")."""
    error = (error or "").strip()
    prefix = f"{name}: "
    return error[len(prefix):] if error.startswith(prefix) else error


def error_line(name: str, error: str) -> str:
    """One Markdown list item naming the file once, in bold."""
    if error.startswith(name):
        return f"- **{name}**{error[len(name):]}"
    return f"- **{name}**: {error}"


def ingest_rows(results) -> list[dict[str, Any]]:
    return [{"file": r.source, "status": r.status, "chunks": r.n_chunks, "entities": r.n_entities,
             "relations": r.n_relations, "seconds": round(r.duration_ms / 1000.0, 2),
             "error": plain_error(r.source, r.error)} for r in results]


def ingest_summary(rows: list[dict[str, Any]]) -> str:
    """"Ingested 3 of 11 files (8 unchanged: already in the knowledge base)." from ``ingest_rows`` rows."""
    done = [r for r in rows if r["status"] in ("added", "replaced", "restored")]
    unchanged = sum(r["status"] == "unchanged" for r in rows)
    duplicates = sum(r["status"] == "duplicate" for r in rows)
    errors = sum(r["status"] == "error" for r in rows)
    text = f"Ingested {len(done)} of {len(rows)} files"
    extra = ([f"{unchanged} unchanged: already in the knowledge base"] if unchanged else []) + (
        [f"{duplicates} duplicate: the same bytes are already in the knowledge base under another name"]
        if duplicates else []) + ([f"{errors} with an error"] if errors else [])
    return text + (f" ({'; '.join(extra)})." if extra else ".")


class IngestProgress:
    """One progress bar per file, advanced by the KB's progress callback ``(file, stage, fraction)``."""

    def __init__(self, names: list[str]) -> None:
        self.bars = {name: st.progress(0.0, text=f"{name}: waiting") for name in names}

    def __call__(self, name: str, stage: str, fraction: float) -> None:
        bar = self.bars.get(name)
        if bar is None:
            bar = self.bars[name] = st.progress(0.0)
        bar.progress(min(max(float(fraction), 0.0), 1.0), text=f"{name}: {stage}")

    def finish(self, name: str, text: str) -> None:
        """The file's last word: its status ("added", "unchanged", …) or "error"."""
        if name in self.bars:
            self.bars[name].progress(1.0, text=f"{name}: {text}")


# ---- sample questions ------------------------------------------------------------------------------------------
SAMPLE_GROUPS = (  # (kind, expected route) → heading; a trap is a question the documents seem to cover but do not
    (("covered", "vector"), "Document search · 문서 검색 (vector)"),
    (("covered", "graph"), "Relations across documents · 관계 추적 (graph)"),
    (("uncovered", None), "Traps: not in the documents · 함정 질문 (문서에 없음)"),
    (("web", None), "Recent or outside facts · 최신·외부 정보 (web)"),
    (("direct", None), "No retrieval needed · 검색 없이 바로 답변 (direct)"),
    (("covered", "sql"), "Counts and sums over tables · 표 집계·비교 (sql)"),
)


def sample_groups(samples: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The sample questions grouped under a heading per route (vector, graph, traps, web, direct), in that order;
    questions of any other kind come last under "Other"."""
    groups: list[tuple[str, list[dict[str, Any]]]] = [(title, []) for _, title in SAMPLE_GROUPS]
    other: list[dict[str, Any]] = []
    for q in samples:
        for n, ((kind, route), _) in enumerate(SAMPLE_GROUPS):
            if q.get("kind") == kind and (route is None or q.get("expected_route") == route):
                groups[n][1].append(q)
                break
        else:
            other.append(q)
    return [g for g in groups if g[1]] + ([("Other · 기타", other)] if other else [])


# ---- runs -------------------------------------------------------------------------------------------------------
def grades_frame(run: Run) -> pd.DataFrame:
    """Every document the run saw, per attempt: source, retrieval score, grade, grade score, reason."""
    strategies = {a.number: a.strategy for a in run.attempts}
    rows = []
    for d in sorted(run.documents, key=lambda d: (d.attempt, -(d.grade_score or 0.0), -d.score)):
        rows.append({
            "attempt": d.attempt, "strategy": strategies.get(d.attempt, d.tool), "source": d.source,
            "chunk": d.chunk_index if d.chunk_index is not None else "", "retrieval score": round(d.score, 4),
            "grade": GRADE_ICON.get(d.grade, d.grade or (CONTEXT_LABEL if context_of(d) else "not graded")),
            "grade score": None if d.grade_score is None else round(d.grade_score, 3),
            "reason": d.grade_reason or "", "text": d.text[:160], "id": d.id,
        })
    return pd.DataFrame(rows, columns=["attempt", "strategy", "source", "chunk", "retrieval score", "grade",
                                       "grade score", "reason", "text", "id"])


def run_metrics(run: Run, other: Run | None = None, compact: bool = False) -> None:
    """Model calls, tokens, wall time and attempts; with ``other``, the difference to it (more is shown in red).
    ``compact``: two rows of two, for half-width columns (four in a row cut the time to "0.…")."""
    cols = [c for _ in range(2) for c in st.columns(2)] if compact else st.columns(4)
    values = [("model calls", run.llm_calls, other.llm_calls if other else None, "{:+d}", str),
              ("tokens", run.tokens["total"], other.tokens["total"] if other else None, "{:+d}", str),
              ("time", run.wall_ms / 1000, other.wall_ms / 1000 if other else None, "{:+.2f} s", "{:.2f} s".format)]
    for col, (label, mine, theirs, fmt, show) in zip(cols, values):
        if theirs is None:
            col.metric(label, show(mine))
        elif round(mine - theirs, 2) == 0:
            col.metric(label, show(mine), "same", delta_color="off", delta_arrow="off")
        else:
            col.metric(label, show(mine), fmt.format(mine - theirs), delta_color="inverse")
    cols[3].metric("attempts", len(run.attempts))


def answer_markdown(text: str) -> str:
    """The answer's lines as Markdown: "- " lines stay list items, other lines become paragraphs; everything else is
    escaped (``md_escape``): an image or link copied from a document stays text, "$" is no LaTeX."""
    out: list[str] = []
    previous_item = False
    for line in (text or "").splitlines():
        if not line.strip():
            continue
        stripped = line.lstrip()
        item = stripped.startswith(("- ", "* "))
        shown = line[: len(line) - len(stripped)] + stripped[:2] + md_escape(stripped[2:]) if item else md_escape(line)
        out.append(("\n" if item and previous_item else "\n\n") + shown)
        previous_item = item
    return "".join(out).strip()


def answer_block(run: Run) -> None:
    if run.error:
        st.error(f"The run stopped with an error: {md_escape(run.error)}")
    if run.abstained:
        st.warning("Abstained · 답변 보류 — the evidence did not support an answer.")
    elif run.partial:
        st.warning("Partial answer · 부분 답변 — the budget ran out; found and not found are listed.")
    st.markdown(answer_markdown(run.answer) or "_(no answer)_")
    st.caption(f"stop reason: {md_escape(run.stop_reason or '-')} · route: {md_escape(run.route or '-')} · "
               f"run {run.run_id}")


def citations_block(run: Run, kb=None, key: str = "cite") -> None:
    """Each citation opens the cited chunk (the whole chunk from the knowledge base when it is still there)."""
    if not run.citations:
        st.caption("No citations.")
        return
    # chunks the answer read as context next to a usable one (rag.variants.base.with_context_neighbours): not graded
    neighbours = {d.id: context_of(d) for d in run.documents if context_of(d)}
    matched = {d.id: (d.metadata or {}).get(MATCHED_FOR) for d in run.documents if context_of(d)}
    for n, c in enumerate(run.citations, start=1):
        where = f" · chunk {c.chunk_index}" if c.chunk_index is not None else ""
        with st.expander(f"[{n}] {md_escape(c.source)}{where}"):  # a label is Markdown too
            if c.id in neighbours and matched.get(c.id):
                st.caption(f"Read as context: the chunk of {neighbours[c.id]}'s document that matches "
                           f"\"{md_escape(matched[c.id])}\" best by meaning, not graded · "
                           f"{neighbours[c.id]}와 같은 문서에서 의미로 찾은 청크를 문맥으로 읽음 (채점하지 않음)")
            elif c.id in neighbours:
                st.caption(f"Read as context next to {neighbours[c.id]}, not graded · "
                           f"{neighbours[c.id]} 옆 청크를 문맥으로 읽음 (채점하지 않음)")
            chunk = kb.get_chunk(c.id) if kb is not None and c.doc_id else None
            # plain text, never Markdown: a cited "## Heading" line must not turn into a page-sized title
            if chunk is not None and chunk.text.strip() == (c.text or "").strip():
                st.markdown("**Cited chunk · 인용 청크** (the whole chunk)")
                st.text(chunk.text)
            else:
                st.markdown("**Cited text · 인용 문장**")
                st.text(c.text)
                if chunk is not None:
                    st.markdown("**Whole chunk · 전체 청크**")
                    st.text(chunk.text)
            st.caption(f"id: {c.id}")


def generator_view(run: Run) -> None:
    """Exactly what the generator was given: only the context, or only the prompt."""
    only_context, only_prompt = st.tabs(["Only context · 컨텍스트만", "Only prompt · 프롬프트만"])
    with only_context:
        st.text(run.generator_context or "(no context: the generator got no documents)")
    with only_prompt:
        if not run.generator_prompt:
            st.text("(no prompt recorded)")
        for message in run.generator_prompt:
            st.markdown(f"**{message.get('role', '?')}**")
            st.text(message.get("content", ""))


def quality_block(run: Run) -> None:
    chart = quality_chart(run)
    if chart is None:
        if any(step.node.startswith("retrieve") for step in run.steps):  # e.g. naive RAG: one retrieval, no check
            st.caption(f"The {run.variant} variant retrieves once and never scores its context, so there is no "
                       "quality per attempt · 품질 점수를 매기지 않는 방식입니다.")
        else:
            st.caption("No retrieval attempts: this run answered directly · 검색 없이 바로 답했습니다.")
        return
    st.altair_chart(chart, width="stretch")
    frame = quality_frame(run)
    st.dataframe(frame[["attempt", "strategy", "quality", "threshold", "next step", "status", "query"]],
                 hide_index=True, width="stretch")


def graph_width(n_nodes: int) -> str:
    """Graphviz width: a picture of a few nodes keeps its natural size (stretched to the column, a 3-node graph
    turns into giant boxes); bigger ones fill the column."""
    return "stretch" if n_nodes > 4 else "content"


def diagram_block(run: Run, upto: int | None = None) -> None:
    dot = diagram.agent_dot(run, upto=upto)
    st.graphviz_chart(dot, width=graph_width(diagram.count_nodes(dot)))
    st.caption("Path · 경로: " + diagram.path_text(run))
    st.caption("Blue: visited · orange: re-route / rewrite · red: failed · gold: the step being inspected. "
               "Edge and node numbers give the order.")


def teaching_notes_block(run: Run, steps: list[Step] | None = None) -> None:
    """Korean + English notes for each step, when the sidebar toggle is on."""
    if not st.session_state.get(TEACHING_NOTES):
        return
    with st.container(border=True):
        st.markdown("**📘 Teaching notes · 해설**")
        for step in (steps if steps is not None else run.steps):
            ko, en = notes.teaching_note(step, run)
            st.markdown(f"**{step.index + 1}. `{step.node}`**  \n🇰🇷 {md_escape(ko)}  \n🇬🇧 {md_escape(en)}")


def step_line(step: Step) -> str:
    mark = "✗" if step.status == "failed" else "✓"
    text = f"{mark} {step.index + 1}. **{step.node}**"
    if step.decision:
        text += f" → {code_span(step.decision)}"
    if step.documents:
        text += f" · {len(step.documents)} docs"
    text += f" · {step.duration_ms:.0f} ms"
    if step.reason:
        text += f"  \n  {md_escape(step.reason)}"
    return text


def live_steps(container) -> Callable[[Step], None]:
    """An ``on_step`` callback that writes each finished step into ``container`` as it happens."""
    def on_step(step: Step) -> None:
        container.markdown(step_line(step))
        if st.session_state.get(TEACHING_NOTES):
            # the run is not finished; notes that need the whole run use only what the step itself recorded
            ko, _ = notes.NODE_PURPOSE.get(step.node, ("", ""))
            if ko:
                container.caption(ko)
    return on_step


def step_detail(step: Step, run: Run) -> None:
    """Everything one step recorded: decision, reason, inputs, output, documents, prompts and raw model output."""
    st.markdown(f"**node** `{step.node}` · **decision** {code_span(step.decision or '-')} · "
                f"**duration** {step.duration_ms:.0f} ms · **attempt** {step.attempt or '-'} · "
                f"**status** {step.status}")
    if step.status != "ok":
        st.error(f"status: {step.status} — {md_escape(step.error or step.reason)}")
    st.markdown(f"**Reason · 이유:** {md_escape(step.reason or '-')}")
    if st.session_state.get(TEACHING_NOTES):
        ko, en = notes.teaching_note(step, run)
        st.info(f"🇰🇷 {md_escape(ko)}\n\n🇬🇧 {md_escape(en)}")
    st.markdown("**Inputs**")  # one above the other: side by side, long strings wrapped every few characters
    st.json(step.inputs or {}, expanded=True)
    st.markdown("**Output**")
    st.json(step.output or {}, expanded=True)
    if step.documents:
        st.markdown(f"**Documents ({len(step.documents)})**")
        st.dataframe(pd.DataFrame([{
            "source": d.source, "chunk": d.chunk_index, "tool": d.tool, "score": round(d.score, 4),
            "grade": d.grade or "", "grade score": d.grade_score, "reason": d.grade_reason or "", "text": d.text[:200],
        } for d in step.documents]), hide_index=True, width="stretch")
    if step.model_calls:
        st.markdown(f"**Model calls ({len(step.model_calls)})**")
        for i, call in enumerate(step.model_calls, start=1):
            title = (f"{i}. {call.purpose} · {call.model} · {call.duration_ms:.0f} ms · "
                     f"{call.prompt_tokens}+{call.completion_tokens} tokens")
            with st.expander(md_escape(title + (" · ⚠ " + call.error if call.error else ""))):
                st.markdown("**Prompt**")
                for message in call.prompt:
                    st.caption(message.get("role", "?"))
                    st.text(message.get("content", ""))
                st.markdown("**Raw model output**")
                st.code(call.raw_output or "", language=None)
    else:
        st.caption("No model calls in this step.")


def run_json(run: Run) -> str:
    return json.dumps(run.to_dict(), ensure_ascii=False, indent=2)
