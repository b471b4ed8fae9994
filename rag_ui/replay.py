"""What-if replay in the trace inspector: edit the decision a step recorded, continue from there, and see the parent
and the fork side by side with the diverging step marked on both diagrams.

The engine does the fork (``rag.replay.fork_run``: LangGraph time travel over the run's checkpoints); this module
only offers the edits that fit the step and draws what the two recorded runs say.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from rag import handout
from rag.replay import fork_run
from rag.trace import Run, Step
from rag.types import RagError
from rag.variants.base import GRADE_LABELS
from rag_ui import diagram, resources, widgets
from rag_ui.state import INSPECT_RUN_ID

FILL_EDITED = handout.FILL_MARK  # the step whose decision was edited, on both diagrams
ROUTES = ("vector", "graph", "web", "direct")


def edit_choices(step: Step) -> list[str]:
    """The kinds of edit this step allows (what it recorded a decision about)."""
    if step.status == "failed":
        return []
    graded = [d for d in step.documents if d.grade is not None]
    if graded and step.node != "evaluate_context":
        # a bundle grade (one verdict for the whole tool result) decides inside its node: not editable per document
        bundle = all((d.grade_reason or "").startswith("graded with the whole tool result") for d in graded)
        return [] if bundle else ["grade"]
    if "next_action" in step.output and "quality" in step.output:
        return ["quality", "threshold"]
    if step.node == "classify":
        return ["route", "query"]
    if step.node == "re_route":
        return ["route"]
    if step.node == "rewrite_query":
        return ["query"]
    return []


def _edit_widget(step: Step, run: Run, kind: str) -> str | None:
    """Widgets for one kind of edit; returns the edit text (``grade[2]=correct``) or None."""
    key = f"whatif_{run.run_id}_{step.index}"
    if kind == "grade":  # offered only for a step with graded documents (edit_choices)
        index = st.selectbox("Document · 문서", range(len(step.documents)), key=f"{key}_doc",
                             format_func=lambda i: f"[{i}] {step.documents[i].source} — {step.documents[i].grade}")
        recorded = step.documents[index].grade or "incorrect"
        others = [g for g in GRADE_LABELS if g != recorded] + [recorded]
        label = st.selectbox("Grade it as · 이렇게 채점", others, key=f"{key}_grade_{index}")
        return f"grade[{index}]={label}"
    if kind == "quality":
        value = st.slider("Quality · 품질 점수", 0.0, 1.0, float(step.output.get("quality") or 0.0), 0.05,
                          key=f"{key}_quality")
        return f"quality={value:.2f}"
    if kind == "threshold":
        value = st.slider("Threshold · 기준값", 0.0, 1.0, float(step.output.get("threshold") or 0.6), 0.05,
                          key=f"{key}_threshold")
        return f"threshold={value:.2f}"
    if kind == "route":
        current = step.output.get("strategy") or step.decision
        options = [r for r in ROUTES if r != current and (step.node == "classify" or r != "direct")]
        return f"route={st.selectbox('Route · 경로', options, key=f'{key}_route')}"
    if kind == "query":
        text = st.text_input("Query · 검색어", value=str(step.output.get("query") or run.question), key=f"{key}_query")
        return f"query={text}" if text.strip() else None
    return None


def fork_panel(run: Run, step: Step | None) -> None:
    """Under the inspected step: 'What if …?' — edit its decision and continue the run from this checkpoint."""
    if step is None:
        return
    with st.expander("What if? · 만약 이 판단이 달랐다면", expanded=False):
        if not run.replay.get("checkpoint_id"):
            st.info("This run has no checkpoints (recorded before what-if replay, or by a variant without a graph). "
                    "Ask the question again to fork it.")
            return
        kinds = edit_choices(step)
        if not kinds:
            st.caption(f"`{step.node}` records no decision to edit. Pick a classify, grading, evaluate_context, "
                       "re_route or rewrite_query step with the slider.")
            return
        kind = st.radio("Edit · 바꿀 것", kinds, horizontal=True, key=f"whatif_kind_{run.run_id}_{step.index}") \
            if len(kinds) > 1 else kinds[0]
        edit = _edit_widget(step, run, kind)
        st.caption("The run continues from this step's LangGraph checkpoint with your edit; the original run is kept "
                   "as it is. · 이 단계의 체크포인트에서 수정한 판단으로 이어서 실행합니다. 원래 실행은 그대로 남습니다.")
        if st.button("Continue from here · 여기서 이어서 실행", key=f"whatif_go_{run.run_id}_{step.index}",
                     type="primary", disabled=edit is None):
            s = resources.settings()
            try:
                with st.spinner("Continuing the run…"):
                    fork = fork_run(resources.run_store(s), run, step.index, edit, kb=resources.knowledge_base(s),
                                    engine=resources.engine(s), settings=s)
            except RagError as exc:
                st.error(str(exc))
                return
            st.session_state[INSPECT_RUN_ID] = fork.run_id
            st.query_params.pop("run", None)
            st.rerun()


def mark_steps(run: Run, step_indices: list[int], label: str) -> str:
    """The run's full path (``diagram.agent_dot``) with the nodes of the given 0-based steps drawn in red and
    labelled ``label #n``."""
    return handout.mark_dot(diagram.agent_dot(run), run, step_indices, label)


def marked_dot(run: Run, step_index: int) -> str:
    """The run's full path with the edited (diverging) step drawn in red and labelled 'what-if'."""
    return mark_steps(run, [step_index], "what-if")


def lineage_block(run: Run) -> None:
    """When the inspected run is a fork: its parent and it side by side, the diverging step marked on both."""
    parent_id = run.replay.get("parent_run_id")
    if not parent_id:
        return
    parent = resources.run_store(resources.settings()).get(parent_id)
    edit: dict[str, Any] = run.replay.get("edit") or {}
    step = int(run.replay.get("step", 0))
    st.markdown(f"#### What-if fork · 가정 실행: step {step + 1} `{run.replay.get('node')}` — "
                f"**{widgets.md_escape(edit.get('text', ''))}** (recorded: {widgets.md_escape(edit.get('was'))})")
    if parent is None:
        st.caption(f"The parent run {parent_id} is not in the store any more.")
        return
    for col, r, title in zip(st.columns(2), (parent, run), ("Parent · 원래 실행", "Fork · 가정 실행")):
        with col:
            st.markdown(f"**{title}** · `{r.run_id}`")
            st.graphviz_chart(marked_dot(r, step), width="stretch")
            st.caption("Path · 경로: " + diagram.path_text(r))
            widgets.answer_block(r)
    st.caption("Red: the step whose decision was edited (where the two runs part). · 빨간 칸: 판단을 바꾼 단계 "
               "(두 실행이 갈라지는 곳).")
    if st.button(f"Open the parent run {parent_id}", key=f"open_parent_{run.run_id}"):
        st.session_state[INSPECT_RUN_ID] = parent_id
        st.rerun()


@st.cache_data(max_entries=32, show_spinner=False)
def _handout(run_id: str, data_dir: str) -> str:
    store = resources.run_store(resources.settings())
    run = store.get(run_id)
    return handout.handout_for(run, store.get) if run is not None else ""


def handout_button(run: Run) -> None:
    """Download the run (a fork: with its parent side by side) as one self-contained HTML file for a class."""
    st.download_button("Download a handout (HTML) · 유인물", _handout(run.run_id, str(resources.settings().data_dir)),
                       file_name=f"handout-{run.run_id}.html", mime="text/html", key="export_handout")


@st.cache_data(max_entries=32, show_spinner=False)
def _comparison(run_id: str, other_id: str, data_dir: str) -> str:
    """The comparison handout of two stored runs, built once (it runs Graphviz's ``dot`` per run), not per rerun."""
    store = resources.run_store(resources.settings())
    runs = [store.get(run_id), store.get(other_id)]
    return handout.comparison_handout(runs) if all(runs) else ""


def comparison_button(run: Run, other: Run | None) -> None:
    """Download the two compared runs side by side as one HTML handout."""
    if other is None:
        return
    st.download_button("Download the comparison as a handout (HTML) · 비교 유인물",
                       _comparison(run.run_id, other.run_id, str(resources.settings().data_dir)),
                       file_name=f"compare-{run.run_id}-{other.run_id}.html", mime="text/html",
                       key="export_comparison")
