"""Home: what this is, which backends are active, what the knowledge base holds, and the sample documents."""
from __future__ import annotations

import streamlit as st

from rag_ui import resources, widgets
from rag_ui.state import INGEST_RESULTS, init_state

init_state()
s = resources.settings()
kb = resources.knowledge_base(s)

st.title("Agentic RAG — demo and inspector")
st.markdown(
    "Ask a question about your documents and watch an agent **route, grade, re-check and re-route** before it "
    "answers, next to a naive RAG pipeline on the same index.  \n"
    "Every step it takes is recorded in a trace you can replay here: the path through the graph, each document's "
    "grade, the context-quality score per attempt, and the exact prompts.\n\n"
    "문서에 대해 질문하면, 에이전트가 검색 경로를 고르고 문서를 채점하고 다시 확인한 뒤 답하는 과정을 "
    "단순(naive) RAG와 나란히 보여 줍니다. 모든 단계는 기록되어 그대로 다시 살펴볼 수 있습니다."
)

st.subheader("Knowledge base · 지식 베이스")
counts_slot = st.container()  # filled after the button, so a load shows its new counts at once

samples = resources.sample_doc_paths()
if st.button(f"Load the sample documents ({len(samples)} files) · 샘플 문서 불러오기", type="primary",
             disabled=not samples, key="load_samples"):
    progress = widgets.IngestProgress([p.name for p in samples])
    results = kb.ingest_paths(samples, progress=progress)
    for r in results:
        progress.finish(r.source, r.status if r.status != "error" else
                        f"error — {widgets.plain_error(r.source, r.error)}")
    st.session_state[INGEST_RESULTS] = widgets.ingest_rows(results)
with counts_slot:
    widgets.kb_counts(kb)
if st.session_state[INGEST_RESULTS]:
    rows = st.session_state[INGEST_RESULTS]
    errors = [r for r in rows if r["status"] == "error"]
    st.success(widgets.ingest_summary(rows) + " Next: ask a question on the **Ask** page.")
    with st.expander("Ingest results", expanded=bool(errors)):
        st.dataframe(rows, hide_index=True, width="stretch")
if not kb.counts().get("documents"):
    st.info("The knowledge base is empty. Load the sample documents above, or upload your own on **Documents**.")

st.subheader("Backends · 백엔드")
st.caption("Everything works offline with no keys. Set the environment variables below to switch a part to a real "
           "service, then restart the app.")
st.table(widgets.backend_status_frame(kb).set_index("component"))  # a table wraps the long how-to text
st.caption(f"Data directory: `{s.data_dir}` (set `RAG_DATA_DIR` to move it).")

st.subheader("Models per role · 역할별 모델")
info = resources.engine(s).describe()
if info.get("engine") == "llm":
    routing = ("offline rules first, the model only when they are unsure" if info.get("routing") == "tiered"
               else "the model, every question")
    st.table([
        {"role": "router (classify)", "model": info.get("router_model"), "how": routing,
         "setting": "RAG_ROUTER_MODEL, RAG_LLM_ROUTING"},
        {"role": "grader (grade documents)", "model": info.get("grader_model") or info.get("router_model"),
         "how": {"batch": "all documents in one call", "parallel": "one call per document, at the same time",
                 "per_doc": "one call per document, in turn"}.get(str(info.get("grading")), info.get("grading")),
         "setting": "RAG_GRADER_MODEL, RAG_LLM_GRADING"},
        {"role": "context quality", "model": "–" if info.get("quality") == "grades" else info.get("router_model"),
         "how": "computed from the grades (no call)" if info.get("quality") == "grades" else "one call per attempt",
         "setting": "RAG_LLM_QUALITY"},
        {"role": "generator (answer)", "model": info.get("generator_model"), "how": "one call, streamed on Ask",
         "setting": "RAG_GENERATOR_MODEL"},
    ])
    st.caption(f"Answer cache: {'on' if s.answer_cache else 'off'} (RAG_ANSWER_CACHE, similarity ≥ "
               f"{s.cache_similarity:g}) · prices: {s.llm_prices or 'not set (RAG_LLM_PRICES)'}")
else:
    st.caption("Offline engine: rules and scores, no model. With OPENAI_API_KEY or OPENAI_BASE_URL the llm engine "
               "runs; RAG_ROUTER_MODEL, RAG_GRADER_MODEL and RAG_GENERATOR_MODEL pick a model per role.")
