"""Evaluate: run a question set with each variant on this knowledge base; metrics, charts, and every run's trace."""
from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from rag.cost import format_usd, variant_costs
from rag.eval import tables
from rag.failures import family_table
from rag.eval.questions import QuestionSetError, load_questions, load_questions_bytes
from rag.eval.runner import evaluate, metrics_csv, questions_csv, report_json
from rag_ui import resources, widgets
from rag_ui.state import init_state, open_in_inspector

EVAL_REPORT = "eval_report"  # the last report of this session
EVAL_TABLE_NONCE = "eval_table_nonce"  # bumped after a row opened the inspector, so its selection starts empty
SAMPLE, UPLOAD = "Sample questions (sample_docs/questions.jsonl)", "Upload a .jsonl question set"

init_state()
st.session_state.setdefault(EVAL_REPORT, None)
st.session_state.setdefault(EVAL_TABLE_NONCE, 0)
base = resources.settings()

st.title("Evaluate · 평가")
st.caption("Runs every question with each variant on the same index. Every run is stored, so each row opens its "
           "trace. 'Silent failure' = a confident answer that is wrong or that the documents do not support.")

source = st.radio("Question set", [SAMPLE, UPLOAD], key="eval_source", horizontal=True)
try:
    if source == SAMPLE:
        if not resources.SAMPLE_QUESTIONS.exists():
            st.info("The sample question set is missing (sample_docs/questions.jsonl); upload one instead.")
            st.stop()
        question_set = load_questions(resources.SAMPLE_QUESTIONS)
    else:
        upload = st.file_uploader("JSONL: one object per line with id, question, and optionally expected_route, "
                                  "kind, expected, relevant_sources, reference", type=["jsonl", "json", "txt"],
                                  key="eval_upload")
        if upload is None:
            st.info("Upload a question set to evaluate it.")
            st.stop()
        question_set = load_questions_bytes(upload.name, upload.getvalue())
except QuestionSetError as exc:
    st.error(str(exc))
    st.stop()

kinds = pd.Series([q.effective_kind or "unspecified" for q in question_set]).value_counts()
st.caption(f"**{widgets.md_escape(question_set.name)}**: {len(question_set)} questions · "
           + " · ".join(f"{k}: {n}" for k, n in kinds.items()))

names = resources.variant_names()
c1, c2, c3, c4 = st.columns([3, 1, 1, 1])
chosen = c1.multiselect("Variants", names, default=names, key="eval_variants")  # every registered variant
threshold = c2.slider("Quality threshold", 0.0, 1.0, float(base.threshold), step=0.05, key="eval_threshold")
max_attempts = c3.number_input("Max attempts", 1, 6, int(base.max_attempts), key="eval_max_attempts")
top_k = c4.number_input("Top-k", 1, 20, int(base.top_k), key="eval_top_k")

kb = resources.knowledge_base(base)
if not kb.counts().get("documents"):
    st.warning("The knowledge base is empty: every retrieval will find nothing. Load the sample documents on the "
               "Home page, or upload yours on the Documents page.")

if st.button("Run evaluation", type="primary", disabled=not chosen, key="eval_run"):
    settings = resources.settings(threshold=float(threshold), max_attempts=int(max_attempts), top_k=int(top_k))
    bar = st.progress(0.0, text="starting…")

    def progress(done: int, total: int, label: str) -> None:
        bar.progress(done / total if total else 1.0, text=f"{done}/{total} · {label}")

    st.session_state[EVAL_REPORT] = evaluate(question_set, chosen, kb, resources.engine(settings), settings,
                                             resources.run_store(base), progress=progress)
    bar.empty()

report = st.session_state[EVAL_REPORT]
if report is None:
    st.info("Pick a question set and variants, then **Run evaluation**.")
    st.stop()

st.subheader("Metrics per variant")
st.caption(f"{report['question_set']} · {report['n_questions']} questions · engine "
           f"{report['engine'].get('name', '?')} · {report['wall_s']} s. Empty cells: the metric does not apply "
           "to this set. Context metrics count the documents the generator was given.")
st.dataframe(pd.DataFrame(tables.metrics_rows(report)).drop(columns=["key"]), hide_index=True, width="stretch")

rates = pd.DataFrame(tables.long_rows(report, tables.RATE_METRICS))
if not rates.empty:  # one horizontal group of bars per metric: long metric names stay readable
    st.altair_chart(alt.Chart(rates, title="Rates (0–1) per variant").mark_bar().encode(
        y=alt.Y("metric:N", title=None, sort=None, axis=alt.Axis(labelLimit=260)), yOffset="variant:N",
        x=alt.X("value:Q", title=None, scale=alt.Scale(domain=[0, 1])), color="variant:N",
        tooltip=["metric", "variant", alt.Tooltip("value:Q", format=".3f")]))
cost = pd.DataFrame(tables.long_rows(report, tables.COST_METRICS))
if not cost.empty:  # each cost metric on its own scale
    cols = st.columns(len(tables.COST_METRICS))
    for col, key in zip(cols, tables.COST_METRICS):
        part = cost[cost["metric"] == tables.METRIC_LABELS[key]]
        if not part.empty and not part["value"].any():  # e.g. model calls with the offline engine
            col.caption(f"**{tables.METRIC_LABELS[key]}**: 0 for every variant")
        elif not part.empty:
            col.altair_chart(alt.Chart(part, title=tables.METRIC_LABELS[key], height=180).mark_bar().encode(
                x=alt.X("variant:N", title=None, axis=alt.Axis(labelAngle=0)), y=alt.Y("value:Q", title=None),
                color=alt.Color("variant:N", legend=None), tooltip=["variant", "value"]))

scored = pd.DataFrame(tables.quality_rows(report))
if not scored.empty:
    report_threshold = (report.get("settings") or {}).get("threshold")
    st.subheader("Does the quality score know when the answer is there? · 품질 점수는 답이 있는지 알아보는가")
    st.caption("Each run's best context-quality score (the number the agent compares with its threshold), stacked "
               "by whether the documents it retrieved hold the answer (every key fact; a trap: no document can "
               "answer it). The answer in context to the right of the line and the rest to its left would mean the "
               "score separates them; the quality AUROC in the metrics table says how well it does (0.5: not at "
               "all).")
    names = list(scored["variant"].unique())
    cols = st.columns(2 if len(names) > 1 else 1)
    for i, name in enumerate(names):
        part = scored[scored["variant"] == name]
        bars = alt.Chart(part, title=f"{name}: quality score by outcome").mark_bar().encode(
            x=alt.X("bin:Q", scale=alt.Scale(domain=[0, 1], nice=False), title="quality score"), x2="bin_end:Q",
            y=alt.Y("count():Q", title="runs", stack=True, axis=alt.Axis(tickMinStep=1)),
            color=alt.Color("outcome:N", sort=list(tables.OUTCOMES),
                            scale=alt.Scale(domain=list(tables.OUTCOMES), range=["#2e7d32", "#ef6c00", "#c62828"]),
                            legend=alt.Legend(orient="top", title=None)),
            tooltip=["outcome", alt.Tooltip("count():Q", title="runs"), alt.Tooltip("bin:Q", title="from")])
        if report_threshold is not None:
            rule = alt.Chart(pd.DataFrame({"threshold": [float(report_threshold)]})).mark_rule(
                strokeDash=[4, 3], color="black").encode(x="threshold:Q")
            bars = bars + rule
        cols[i % len(cols)].altair_chart(bars, width="stretch", height=260)


@st.cache_data(max_entries=8, show_spinner=False)
def report_costs(rows: tuple[tuple[str, str | None], ...], data_dir: str, prices: str | None) -> list[dict]:
    """``variant_costs`` of a report's (variant, run id) rows: it loads every run, so once per report, not per rerun
    (a recorded run does not change)."""
    return variant_costs([{"variant": v, "run_id": i} for v, i in rows], resources.run_store(base).get, prices)


costs = report_costs(tuple((q["variant"], q.get("run_id")) for q in report["questions"]), str(base.data_dir),
                     base.llm_prices)
if any(row["model calls"] for row in costs):
    st.subheader("Tokens and money per variant · 변형별 토큰과 비용")
    st.dataframe(pd.DataFrame([{**row, "usd": format_usd(row["usd"]),
                                "usd per question": format_usd(row["usd per question"])} for row in costs]),
                 hide_index=True, width="stretch")
    if all(row["usd"] is None for row in costs):
        st.caption("No price table: set RAG_LLM_PRICES (e.g. gpt-4o-mini=0.15/0.60, USD per 1M input/output "
                   "tokens; * for any model) to see money per run and per variant.")

st.subheader("Routing: expected (rows) × chosen (columns)")
cols = st.columns(max(1, len(report["variants"])))
for col, name in zip(cols, report["variants"]):
    rows = tables.confusion_rows(report, name)
    col.markdown(f"**{name}**")
    if rows:
        col.dataframe(pd.DataFrame(rows).set_index("expected"), width="stretch")
    else:
        col.caption("no question has an expected route")

st.subheader("The judging-RAG family · 판단하는 RAG 비교 (seed 001)")
st.caption("Declared per variant: minimum model calls counted from its code path as a function of N retrieved "
           "documents (not a measurement), the F-failures its checks prevent and those it leaves open. Measured "
           "beside them: mean model calls, key-fact hits, silent failures, and the share of runs labelled F1–F7 "
           "(observed in the trace; see README 'Failure taxonomy').")
st.dataframe(pd.DataFrame(report.get("family") or family_table(report)), hide_index=True, width="stretch",
             key="eval_family")

st.subheader("Per question · 질문별 결과")
st.caption("Select a row to open its run in the trace inspector.")
frame = pd.DataFrame(tables.question_rows(report))
event = st.dataframe(frame, hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row",
                     key=f"eval_rows_{st.session_state[EVAL_TABLE_NONCE]}")
selected = list(getattr(getattr(event, "selection", None), "rows", []) or [])
if selected:
    st.session_state[EVAL_TABLE_NONCE] += 1
    open_in_inspector(frame.iloc[selected[0]]["run_id"])

labels = {r["run_id"]: f"{r['id']} · {r['variant']} · {r['route']} · {r['run_id']}" for r in report["questions"]}
c1, c2 = st.columns([4, 1])
pick = c1.selectbox("Run", list(labels), format_func=labels.get, key="eval_pick", label_visibility="collapsed")
if c2.button("Open in trace inspector", key="eval_open", width="stretch"):
    open_in_inspector(pick)

d1, d2, d3 = st.columns(3)
d1.download_button("report.json", report_json(report), "report.json", "application/json", key="eval_dl_json")
d2.download_button("metrics.csv", metrics_csv(report), "metrics.csv", "text/csv", key="eval_dl_metrics")
d3.download_button("questions.csv", questions_csv(report), "questions.csv", "text/csv", key="eval_dl_questions")
