"""Untrusted content (issue 9): text from documents is shown as escaped Markdown, so an image or link inside a
document never becomes an <img> the browser fetches (a tracking pixel). Before: the answer rendered
`![x](http://example.invalid/pixel.png)` and Chromium requested it. tests/ui/test_browser.py checks the requests."""
from __future__ import annotations

import re

from rag_ui import widgets
from rag_ui.state import ASK_RESULT, QUESTION
from tests.support.kb import build_kb

PIXEL = "![x](http://example.invalid/pixel.png)"
PIXEL_DOC = ("# Pixel Labs\n\nPixel Labs is headquartered in Daejeon under the logo " + PIXEL + " on the tower.\n\n"
             "Pixel Labs was founded by Han Jiwoo in 2020. See [the site](http://example.invalid/page) "
             "<img src=\"http://example.invalid/raw.png\"> for more.\n")
PIXEL_QUESTION = "Where is Pixel Labs headquartered?"
# Markdown that would load or link something: an image or link not preceded by a backslash, raw HTML
LIVE_MARKDOWN = re.compile(r"(?<!\\)!(?<!\\)\[[^\]]*(?<!\\)\]\(|(?<!\\)\[[^\]]*(?<!\\)\]\(|(?<!\\)<img", re.I)


def test_md_escape_leaves_nothing_to_load():
    for text in (PIXEL, "[a](http://e/)", '<img src="http://e/p.png">', "![x][r]\n\n[r]: http://e/p.png",
                 ":red[alert] $x$ `code`", "## heading", "> quote"):
        escaped = widgets.md_escape(text)
        assert not LIVE_MARKDOWN.search(escaped), escaped
        assert escaped.replace("\\", "") == text.replace("\\", "")  # nothing dropped, only escaped
    assert widgets.md_escape("## heading").startswith("\\#")
    assert widgets.code_span("a`b") == "`a'b`"


def test_answer_markdown_keeps_list_items_and_escapes_the_rest():
    shown = widgets.answer_markdown(f"Conclusion: {PIXEL}\nEvidence:\n- seen in [1] {PIXEL}\n- $5 a seat")
    assert shown == ("Conclusion: \\!\\[x\\](http://example.invalid/pixel.png)\n\nEvidence:\n\n"
                     "- seen in \\[1\\] \\!\\[x\\](http://example.invalid/pixel.png)\n- \\$5 a seat")


def markdown_shown(at) -> list[str]:
    """Every string the page hands to Streamlit's Markdown renderer (bodies and expander labels)."""
    parts = [str(e.value) for kind in ("markdown", "caption", "info", "warning", "error", "success")
             for e in getattr(at, kind)]
    return parts + [str(e.label) for e in at.expander]


def test_a_cited_document_with_an_image_link_is_shown_as_text(open_app, data_dir):
    build_kb(data_dir, {"pixel.md": PIXEL_DOC}).close()
    at = open_app("app_pages/ask.py", **{QUESTION: PIXEL_QUESTION, "ask_with_naive": True})
    at.button(key="ask").click().run()
    assert not at.exception, [e.value for e in at.exception]
    run = at.session_state[ASK_RESULT]["run"]
    assert any(PIXEL in c.text for c in run.citations)  # the document text itself is kept as it was
    shown = markdown_shown(at)
    assert any("\\!\\[x\\](http://example.invalid/pixel.png)" in s for s in shown)  # the answers quote it, escaped
    assert not [s for s in shown if LIVE_MARKDOWN.search(s)]
    # the cited chunk is shown in full as plain text (st.text), image syntax and all
    assert any(PIXEL in t.value for t in at.text)
