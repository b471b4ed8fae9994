"""The app frame: page navigation and the shared sidebar. Run with ``streamlit run app.py``."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from rag_ui import resources
from rag_ui.state import TEACHING_NOTES, init_state, keep_widget_values

# an emoji favicon is drawn locally (a data: URL); a ":material/…:" one is fetched from fonts.gstatic.com
st.set_page_config(page_title="Agentic RAG inspector", page_icon="🧭", layout="wide")
init_state()
keep_widget_values()

HERE = Path(__file__).resolve().parent
# The pages live in app_pages/, not pages/: with a pages/ folder next to app.py, Streamlit's old automatic navigation
# takes over the first visit after a start when it opens on a deep link (/ask, /inspector?run=…): that page runs on
# its own, without this frame's sidebar and wide layout.
pages = [
    st.Page("app_pages/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("app_pages/documents.py", title="Documents", icon=":material/description:"),
    st.Page("app_pages/ask.py", title="Ask", icon=":material/chat:"),
    st.Page("app_pages/inspector.py", title="Trace inspector", icon=":material/manage_search:"),
    st.Page("app_pages/graph.py", title="Knowledge graph", icon=":material/hub:"),
    st.Page("app_pages/lessons.py", title="Failure lessons", icon=":material/school:"),
]
if (HERE / "app_pages" / "evaluate.py").exists():  # written by the evaluation work; listed once it is there
    pages.append(st.Page("app_pages/evaluate.py", title="Evaluate", icon=":material/analytics:"))
page = st.navigation(pages)

with st.sidebar:
    st.toggle("Teaching notes · 해설", key=TEACHING_NOTES,
              help="Explain in plain words (Korean and English) what each node did and why, from the trace.")
    s = resources.settings()
    try:
        active = [f"{b.component}: **{b.backend}**" for b in resources.knowledge_base(s).status()
                  if b.state == "active"]
        st.caption("Active backends · 사용 중인 백엔드")
        st.markdown("  \n".join(active) or "none")
    except Exception as exc:  # the sidebar must never take the page down with it
        st.caption(f"Backends could not be listed: {exc}")
    st.caption(f"data: `{s.data_dir}`")

page.run()
