"""Trace inspector: past runs, step by step on the diagram; export one, or compare two side by side."""
from __future__ import annotations

import streamlit as st

from rag_ui import replay as whatif
from rag_ui import failures_view, resources, widgets
from rag_ui.state import COMPARE_RUN_ID, INSPECT_RUN_ID, init_state

init_state()
s = resources.settings()
store = resources.run_store(s)

st.title("Trace inspector · 실행 기록")
if st.query_params.get("run"):  # a link like ?run=RUN_ID opens that run
    st.session_state[INSPECT_RUN_ID] = st.query_params["run"]

c1, c2 = st.columns([3, 1])
search = c1.text_input("Search questions and answers", key="inspector_search")
variant = c2.selectbox("Variant", ["all"] + resources.variant_names(), key="inspector_variant")
runs = store.list(limit=200, search=search or None, variant=None if variant == "all" else variant)
wanted = st.session_state[INSPECT_RUN_ID]
if wanted and wanted not in {r["run_id"] for r in runs}:
    picked = store.get(wanted)  # opened from elsewhere: show it even when the filter hides it
    if picked is not None:
        runs = [r for r in store.list(limit=1000) if r["run_id"] == picked.run_id] + runs
if not runs:
    st.info("No runs yet" + (" match this filter." if search or variant != "all" else
                             ". Ask a question on the **Ask** page; every run is recorded here."))
    st.stop()

st.dataframe([{"time": r["created_at"][:19].replace("T", " "), "variant": r["variant"], "route": r["route"],
               "question": r["question"], "quality": ", ".join(f"{q:.2f}" for q in r["quality_scores"]),
               "abstained": r["abstained"], "calls": r["llm_calls"], "ms": round(r["wall_ms"]), "run id": r["run_id"]}
              for r in runs], hide_index=True, width="stretch", height=min(38 + 35 * len(runs), 300))
by_id = {r["run_id"]: r for r in runs}
ids = list(by_id)


def label(run_id: str) -> str:
    r = by_id[run_id]
    return f"{r['created_at'][11:19]} · {r['variant']} · {r['question'][:70]} · {run_id}"


def pick() -> None:
    st.session_state[INSPECT_RUN_ID] = st.session_state["inspector_pick"]
    st.query_params.pop("run", None)


current = st.session_state[INSPECT_RUN_ID] if st.session_state[INSPECT_RUN_ID] in by_id else ids[0]
st.session_state[INSPECT_RUN_ID] = current
st.session_state["inspector_pick"] = current
st.selectbox("Run", ids, format_func=label, key="inspector_pick", on_change=pick)
run = store.get(current)
if run is None:
    st.error(f"Run {current} is listed but could not be loaded.")
    st.stop()

tab_steps, tab_compare = st.tabs(["Step through · 단계별 보기", "Compare two runs · 두 실행 비교"])
with tab_steps:
    st.markdown(f"**Q:** {widgets.md_escape(run.question)}")
    widgets.run_metrics(run)
    if run.cache.get("hit"):  # served by the answer cache (rag.cache): the steps are the original run's
        st.info(f"Answer-cache hit: the same question as run `{run.cache['original_run_id']}` (similarity "
                f"{run.cache['similarity']:.2f}), same settings and documents; 0 model calls, no steps of its own.")
        if st.button("Open the original run", key=f"cache_original_{run.run_id}"):
            st.session_state[INSPECT_RUN_ID] = run.cache["original_run_id"]
            st.rerun()
    whatif.lineage_block(run)  # a fork: parent and fork side by side
    if len(run.steps) > 1:
        number = st.slider("Step · 단계", 1, len(run.steps), value=len(run.steps), key=f"step_{run.run_id}")
    else:
        number = len(run.steps)
    step = run.steps[number - 1] if run.steps else None
    left, right = st.columns([3, 2])  # the diagram needs the room; the step's details read fine narrower
    with left:
        widgets.diagram_block(run, upto=number - 1 if run.steps else None)
    with right:
        if step is None:
            st.info("This run recorded no steps.")
        else:
            st.markdown(f"#### Step {number} of {len(run.steps)}: `{step.node}`")
            widgets.step_detail(step, run)
            whatif.fork_panel(run, step)  # edit this step's decision and continue
    st.markdown("**Answer · 답변**")
    widgets.answer_block(run)
    widgets.citations_block(run, resources.knowledge_base(s), key="inspector_cite")
    failures_view.failure_block(run, key="inspector_failures")
    st.download_button("Export this run as JSON", widgets.run_json(run), file_name=f"run-{run.run_id}.json",
                       mime="application/json", key="export_json")
    whatif.handout_button(run)  # the run as one self-contained HTML file

with tab_compare:
    others = [i for i in ids if i != run.run_id]
    if not others:
        st.info("Only one run so far: ask another question to compare.")
    else:
        if st.session_state[COMPARE_RUN_ID] not in others:
            st.session_state[COMPARE_RUN_ID] = others[0]
        other_id = st.selectbox("Compare with", others, format_func=label, key=COMPARE_RUN_ID)
        other = store.get(other_id)
        for col, r, ref in zip(st.columns(2), (run, other), (other, run)):
            with col:
                st.markdown(f"**{r.variant}** · `{r.run_id}`  \nQ: {widgets.md_escape(r.question)}")
                widgets.run_metrics(r, other=ref, compact=True)
                widgets.diagram_block(r)
                widgets.answer_block(r)
                st.dataframe(widgets.grades_frame(r)[["attempt", "source", "grade", "grade score", "reason"]],
                             hide_index=True, width="stretch")
        whatif.comparison_button(run, other)  # both runs side by side in one HTML file
