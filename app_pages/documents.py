"""Documents: upload files into the knowledge base, browse their chunks, delete one, or reset everything."""
from __future__ import annotations

import streamlit as st

from rag_ui import resources, uploads, widgets
from rag_ui.tables import schema_view
from rag_ui.state import INGEST_RESULTS, init_state

init_state()
s = resources.settings()
kb = resources.knowledge_base(s)

st.title("Documents · 문서")

# ---- upload -----------------------------------------------------------------------------------------------------
st.subheader("Upload · 업로드")
files = st.file_uploader(
    f"Files ({', '.join(uploads.ACCEPTED)}; up to {uploads.MAX_UPLOAD_MB} MB each)", accept_multiple_files=True,
    key="uploader",
    help="Other types are refused with a message; a file that cannot be read changes nothing.")
c1, c2 = st.columns(2)
chunk_size = c1.number_input("Chunk size (characters)", min_value=50, max_value=8000, value=s.chunk_size, step=50,
                             key="chunk_size")
chunk_overlap = c2.number_input("Chunk overlap (characters)", min_value=0, max_value=4000, value=s.chunk_overlap,
                                step=10, key="chunk_overlap")
if chunk_overlap >= chunk_size:
    st.warning("The overlap must be smaller than the chunk size.")
replace = st.checkbox(
    "Replace a document of the same name", value=False, key="replace_same_name",
    help="Off: a different file whose name is already taken is added beside it as 'name (2)'. "
         "On: it replaces the document of that name (an update).")
if st.button("Ingest · 넣기", type="primary", disabled=not files or chunk_overlap >= chunk_size, key="ingest"):
    progress = widgets.IngestProgress([f.name for f in files])
    rows, notes = [], []
    for f in files:
        data = f.getvalue()
        problem = uploads.size_problem(f.name, len(data))
        if problem:
            progress.finish(f.name, "refused — too large")
            rows.append({"file": f.name, "status": "error", "chunks": 0, "entities": 0, "relations": 0,
                         "seconds": 0.0, "error": problem})
            continue
        result = resources.ingest_bytes(kb, f.name, data, chunk_size=int(chunk_size),
                                        chunk_overlap=int(chunk_overlap), progress=progress, replace=replace)
        rows.extend(widgets.ingest_rows([result]))
        if result.note and result.status != "error":  # renamed beside a namesake, duplicate, replaced, restored
            notes.append(f"**{widgets.md_escape(f.name)}** ({result.status}): {widgets.md_escape(result.note)}")
        progress.finish(f.name, result.status if result.status != "error" else f"error — {rows[-1]['error']}")
    st.session_state[INGEST_RESULTS] = rows  # the bars above stay; the table below says what happened
    st.session_state["ingest_notes"] = notes

rows = st.session_state[INGEST_RESULTS]
if rows:
    errors = [r for r in rows if r["status"] == "error"]
    if errors:
        st.error("Not ingested — nothing of these files was written:\n\n"
                 + "\n".join(widgets.error_line(r["file"], r["error"]) for r in errors))
    if len(errors) < len(rows):
        st.success(widgets.ingest_summary(rows))
    for note in st.session_state.get("ingest_notes") or []:
        st.info(note)
    st.dataframe(rows, hide_index=True, width="stretch", key="ingest_table")

# ---- list, browse, delete ---------------------------------------------------------------------------------------
st.subheader("In the knowledge base · 저장된 문서")
if st.session_state.pop("reset_done", False):
    st.success("Reset done: the knowledge base is empty now.")
widgets.kb_counts(kb)
schema_view(kb)  # tables from .csv / .xlsx / .sqlite: columns, types, row count, preview
docs = kb.documents()
if not docs:
    st.info("No documents yet. Upload files above, or load the sample documents on **Home**.")
    st.stop()

# d.source is the visible, unique name: a second "notes.md" is listed as "notes.md (2)" or "teamB/notes.md"
st.dataframe([{"file": d.source, "chunks": d.n_chunks, "characters": d.n_chars, "ingested (UTC)": d.ingested_at[:19].replace("T", " "),
               "doc id": d.doc_id} for d in docs], hide_index=True, width="stretch", key="documents_table")
by_id = {d.doc_id: d for d in docs}
doc_id = st.selectbox("Browse a document", list(by_id), format_func=lambda i: f"{by_id[i].source} ({i[:10]})",
                      key="browse_doc")
chunks = kb.chunks(doc_id)
st.caption(f"{len(chunks)} chunk{'s' if len(chunks) != 1 else ''}")
for chunk in chunks[:200]:
    with st.expander(f"chunk {chunk.index} · {len(chunk.text)} characters"):
        st.text(chunk.text)

pending = st.session_state.get("confirm_delete")
if pending != doc_id:
    if st.button(f"Delete {by_id[doc_id].source}", key="delete"):
        st.session_state["confirm_delete"] = doc_id
        st.rerun()
else:
    st.warning(f"Delete **{widgets.md_escape(by_id[doc_id].source)}** with its chunks, vectors and graph facts?")
    yes, no = st.columns(2)
    if yes.button("Yes, delete", type="primary", key="delete_yes"):
        kb.delete(doc_id)
        st.session_state["confirm_delete"] = None
        st.toast(f"Deleted {by_id[doc_id].source}")
        st.rerun()
    if no.button("Cancel", key="delete_no"):
        st.session_state["confirm_delete"] = None
        st.rerun()

st.divider()
# keyed: the elements above it come and go (progress bars, results), and an unkeyed expander is then redrawn
# closed, so ticking the confirmation box used to fold it away before the Reset button could be pressed
with st.expander("Reset the knowledge base · 전체 초기화", key="reset_expander"):
    st.write("Removes every document, chunk, vector, entity and relation. Runs in the trace store are kept.")
    sure = st.checkbox("I understand that this deletes everything", key="reset_sure")

    def reset() -> None:  # a callback: it may clear the checkbox, which is already drawn during the script
        kb.reset()
        st.session_state[INGEST_RESULTS] = None
        st.session_state["reset_sure"] = False
        st.session_state["reset_done"] = True

    st.button("Reset", type="primary", disabled=not sure, key="reset", on_click=reset)
