"""Ask: run a question through the agent (steps appear live), then see its path, grades, scores and naive RAG."""
from __future__ import annotations

import streamlit as st

from rag.cache import ask as ask_cached
from rag.cost import format_usd
from rag.streaming import stream_tokens
from rag.types import RagError
from rag.variants import check_question_length
from rag_ui import failures_view, resources, widgets
from rag_ui.hops import hop_block
from rag_ui.state import (ASK_MAX_ATTEMPTS, ASK_PENDING, ASK_RESULT, ASK_THRESHOLD, ASK_TOP_K, ASK_VARIANT,
                          ASK_USE_CACHE, ASK_WITH_NAIVE, COMPARE_RUN_ID, INSPECT_RUN_ID, MAX_ATTEMPTS_LIMIT, QUESTION, TOP_K_LIMIT,
                          init_state, open_in_inspector)

init_state()
COMPARE_VARIANTS, COMPARE_RESULT = "compare_variants", "compare_result"  # the compare view: chosen names, run ids
s = resources.settings()
kb = resources.knowledge_base(s)

st.title("Ask · 질문하기")


def stream_into(slot):
    """A token sink that shows the text written so far in ``slot``."""
    written: list[str] = []

    def sink(piece: str) -> None:
        written.append(piece)
        slot.markdown(widgets.md_escape("".join(written)) + " ▌")

    return sink


def ask_settings():
    """The settings with this page's threshold, attempts and top-k (Ask and Compare run with the same ones)."""
    return s.with_(threshold=float(st.session_state[ASK_THRESHOLD]),
                   max_attempts=int(st.session_state[ASK_MAX_ATTEMPTS]), top_k=int(st.session_state[ASK_TOP_K]))


def use_sample(question: str) -> None:
    st.session_state[QUESTION] = question
    st.session_state[ASK_PENDING] = True


samples = resources.sample_questions()
if samples:
    with st.expander("Sample questions · 예시 질문 (one click asks it)", expanded=st.session_state[ASK_RESULT] is None):
        for title, group in widgets.sample_groups(samples):
            st.markdown(f"**{title}**")
            cols = st.columns(2)
            for i, q in enumerate(group):
                cols[i % 2].button(q["question"], key=f"sample_{q['id']}", on_click=use_sample, args=(q["question"],),
                                   help=q["question"], width="stretch")

with st.expander("Settings · 설정"):
    c1, c2, c3, c4 = st.columns(4)
    c1.selectbox("Variant", resources.variant_names(), key=ASK_VARIANT)
    c2.slider("Quality threshold", 0.0, 1.0, step=0.05, key=ASK_THRESHOLD,
              help="Context quality (0–1) the agent needs before it answers.")
    c3.number_input("Max attempts", min_value=1, max_value=MAX_ATTEMPTS_LIMIT, step=1, key=ASK_MAX_ATTEMPTS,
                    help="Retrieval attempts (re-routes and rewrites included) before a partial answer.")
    c4.number_input("Top-k", min_value=1, max_value=TOP_K_LIMIT, step=1, key=ASK_TOP_K)
    st.checkbox("Also run naive RAG on the same question, side by side", key=ASK_WITH_NAIVE)
    st.checkbox("Use the answer cache (a question asked before, with the same settings and documents, is answered "
                "again with no model call; llm engine only) · 답변 캐시 사용", key=ASK_USE_CACHE)

st.text_area("Question · 질문", key=QUESTION, height=80, placeholder="예: 사내 검색 서비스 Atlas는 누가 만들었나요?")
clicked = st.button("Ask · 질문", type="primary", key="ask")
if not kb.counts().get("documents"):
    st.info("The knowledge base is empty: answers can only come from the web or general knowledge. "
            "Load the sample documents on **Home** or upload files on **Documents**.")

question = st.session_state[QUESTION].strip()
if clicked and not question:
    st.warning("Type a question first, or click one of the sample questions above · 질문을 입력하세요.")
try:
    check_question_length(question, s)
except RagError as exc:  # never sent to the agent: say why, keep the text so it can be shortened
    st.warning(f"{str(exc)[0].upper()}{str(exc)[1:]} · 질문이 너무 깁니다.")
    question = ""
if (clicked or st.session_state[ASK_PENDING]) and question:
    st.session_state[ASK_PENDING] = False
    run_settings = ask_settings()
    variant = st.session_state[ASK_VARIANT]
    common = dict(kb=kb, engine=resources.engine(s), settings=run_settings, store=resources.run_store(s),
                  bypass=not st.session_state[ASK_USE_CACHE])
    with st.status(f"Running {variant}…", expanded=True) as status:
        with stream_tokens(stream_into(status.empty())):  # the answer as the model writes it (llm engine)
            run = ask_cached(question, variant=variant, on_step=widgets.live_steps(status), **common)
        status.update(label=f"{variant}: {len(run.steps)} steps, {run.wall_ms / 1000:.2f} s", state="complete",
                      expanded=False)
    naive = None
    if st.session_state[ASK_WITH_NAIVE] and variant != "naive":
        with st.status("Running naive RAG…", expanded=True) as status:
            naive = ask_cached(question, variant="naive", on_step=widgets.live_steps(status), **common)
            status.update(label=f"naive: {len(naive.steps)} steps, {naive.wall_ms / 1000:.2f} s", state="complete",
                          expanded=False)
    st.session_state[ASK_RESULT] = {"run": run, "naive": naive}
    # The inspector opens on the run just asked (not the naive one, which is stored last), with naive to compare.
    st.session_state[INSPECT_RUN_ID] = run.run_id
    st.session_state[COMPARE_RUN_ID] = naive.run_id if naive is not None else None
st.session_state[ASK_PENDING] = False

# ---- compare: one question through any set of variants, side by side (issue 10) --------------------------------
st.session_state.setdefault(COMPARE_VARIANTS, [n for n in ("naive", "agentic", "crag") if n in resources.variant_names()])
st.session_state.setdefault(COMPARE_RESULT, None)
with st.expander("Compare variants side by side · 여러 방식 나란히 비교", expanded=st.session_state[COMPARE_RESULT] is not None):
    st.multiselect("Variants", resources.variant_names(), key=COMPARE_VARIANTS,
                   help="Each one answers the question above on the same index and engine; every run is recorded.")
    compare_clicked = st.button("Compare · 비교", key="compare_run", disabled=not st.session_state[COMPARE_VARIANTS])
    if compare_clicked and not question:
        st.warning("Type a question first · 질문을 입력하세요.")
    if compare_clicked and question:
        from rag.compare import compare_variants

        run_settings = ask_settings()
        with st.status("Comparing…", expanded=False) as status:
            runs = compare_variants(question, list(st.session_state[COMPARE_VARIANTS]), kb, resources.engine(s),
                                    run_settings, store=resources.run_store(s),
                                    on_run=lambda name, r: status.write(f"{name}: {len(r.steps)} steps, "
                                                                        f"{r.wall_ms / 1000:.2f} s"))
            status.update(label=f"Compared {len(runs)} variants", state="complete")
        st.session_state[COMPARE_RESULT] = [r.run_id for r in runs]
    if st.session_state[COMPARE_RESULT]:
        shown = [r for r in (resources.run_store(s).get(i) for i in st.session_state[COMPARE_RESULT]) if r]
        if shown:
            st.caption(f"Q: {widgets.md_escape(shown[0].question)}")
            failures_view.compare_columns(shown, kb)

result = st.session_state[ASK_RESULT]
if result is None:
    st.stop()
run, naive = result["run"], result["naive"]

st.subheader("Answer · 답변")
st.caption(f"Q: {widgets.md_escape(run.question)}")
widgets.answer_block(run)
widgets.citations_block(run, kb, key="ask_cite")
failures_view.failure_block(run, key="ask_failures")
if run.cache.get("hit"):
    st.info(f"Answered from the answer cache: the same question as run `{run.cache['original_run_id']}` "
            f"(similarity {run.cache['similarity']:.2f}), same settings and documents — 0 model calls. Its steps "
            "are in the original run; untick 'Use the answer cache' under Settings to ask again · 캐시된 답변")
    if st.button("Open the original run in the trace inspector", key="open_cached_original"):
        open_in_inspector(run.cache["original_run_id"])
elif run.llm_calls:
    cost = run.cost()
    st.caption("Tokens in/out per role: " + ", ".join(f"{role} {r['input']}/{r['output']}"
                                                       for role, r in cost["by_role"].items())
               + (f" · cost {format_usd(cost['usd'])}" if cost["usd"] is not None else
                  " · set RAG_LLM_PRICES (e.g. gpt-4o-mini=0.15/0.60, USD per 1M tokens) to see the money"))
if st.button("Open this run in the trace inspector", key="open_inspector"):
    open_in_inspector(run.run_id)

left, right = st.columns([4, 3])
with left:
    st.subheader("Path through the graph · 경로")
    widgets.diagram_block(run)
with right:
    st.subheader("Quality per attempt · 시도별 품질")
    widgets.quality_block(run)
widgets.teaching_notes_block(run)
hop_block(run)  # react: each hop's summary and context size with / without summaries

st.subheader("Document grades · 문서 채점 (every attempt)")
grades = widgets.grades_frame(run)
if grades.empty:
    st.caption("No documents were retrieved in this run.")
else:
    st.dataframe(grades, hide_index=True, width="stretch", key="grades_table")

if naive is not None:
    st.subheader("Naive RAG side by side · 단순 RAG와 비교")
    a, b = st.columns(2)
    with a:
        st.markdown(f"**{run.variant}**")
        widgets.run_metrics(run, other=naive, compact=True)
        widgets.answer_block(run)
    with b:
        st.markdown("**naive** (top-k → generate, no grading)")
        widgets.run_metrics(naive, compact=True)
        widgets.answer_block(naive)
        if naive.documents:
            st.dataframe(widgets.grades_frame(naive)[["source", "chunk", "retrieval score", "text"]],
                         hide_index=True, width="stretch", key="naive_docs")
        else:
            st.caption("Naive RAG retrieved no documents.")
    st.caption(f"{run.variant} used {run.llm_calls - naive.llm_calls:+d} model calls, "
               f"{run.tokens['total'] - naive.tokens['total']:+d} tokens and "
               f"{(run.wall_ms - naive.wall_ms) / 1000:+.2f} s compared with naive RAG on the same index.")

st.subheader("What the generator was given · 생성기에 들어간 것")
widgets.generator_view(run)
