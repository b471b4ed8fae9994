"""Knowledge graph: search an entity, see its neighbourhood as a picture and its relations with evidence."""
from __future__ import annotations

import streamlit as st

from rag_ui import resources, widgets
from rag_ui.diagram import count_nodes
from rag_ui.graphview import neighbourhood_dot
from rag_ui.state import GRAPH_ENTITY, init_state

init_state()
s = resources.settings()
kb = resources.knowledge_base(s)

st.title("Knowledge graph · 지식 그래프")
counts = kb.counts()
st.caption(f"{counts.get('entities', 0)} entities · {counts.get('relations', 0)} relations · "
           f"backend: {kb.graph.backend}")
names = sorted(kb.known_entities(), key=str.casefold)
if not names:
    st.info("The graph is empty. Entities and relations are extracted when documents are ingested: load the sample "
            "documents on **Home** or upload files on **Documents**.")
    st.stop()

c1, c2, c3 = st.columns([2, 2, 1])
text = c1.text_input("Search an entity · 개체 검색", key="graph_search", placeholder="e.g. Atlas, 김민준")
matches = kb.graph.search_entities(text, limit=50) if text.strip() else []
options = matches or names
if text.strip() and not matches:
    st.warning(f"No entity matches “{widgets.md_escape(text)}”. Showing all {len(names)} entities.")
if st.session_state[GRAPH_ENTITY] not in options:
    st.session_state[GRAPH_ENTITY] = options[0]
entity = c2.selectbox("Entity", options, key=GRAPH_ENTITY)
hops = c3.number_input("Hops", min_value=1, max_value=3, value=1, key="graph_hops")

entities, relations = kb.graph.neighbourhood(entity, hops=int(hops), limit=150)
dot = neighbourhood_dot(entity, entities, relations)
st.graphviz_chart(dot, width=widgets.graph_width(count_nodes(dot)))
st.caption(f"{len(entities)} entities and {len(relations)} relations within {hops} hop(s) of "
           f"**{widgets.md_escape(entity)}**.")

st.subheader("Relations with evidence · 관계와 근거")
if not relations:
    others = [m for m in options if m != entity][:8]
    st.info(f"**{widgets.md_escape(entity)}** is mentioned in the documents, but no relation links it to another "
            "entity yet. "
            "· 문서에 이름은 나오지만 다른 개체와 이어진 관계가 없습니다."
            + (f"  \nTry another entity: {widgets.md_escape(', '.join(others))}." if others else ""))
    st.stop()
st.dataframe([{"source": r.source, "relation": r.predicate, "target": r.target, "evidence": r.evidence,
               "file": r.source_file, "chunk": r.chunk_id} for r in relations],
             hide_index=True, width="stretch", key="relations_table",
             column_config={"source": st.column_config.TextColumn(width="medium"),
                            "target": st.column_config.TextColumn(width="medium"),
                            "evidence": st.column_config.TextColumn(width="large")})
