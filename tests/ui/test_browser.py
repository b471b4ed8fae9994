"""The real app in a real browser: `streamlit run app.py` on 127.0.0.1 driven by Debian's headless Chromium.

Flow: Home → load the sample documents → Documents (a bad upload is refused and changes nothing; a document holding a
Markdown image of a remote "tracking pixel" is ingested) → Ask a sample question → the trace inspector → the knowledge
graph → Ask the question that cites the pixel document; a compare view of three variants after the inspector. Screenshots go to test-artifacts/; any Streamlit exception box
fails the test, and so does any request the browser sends anywhere but 127.0.0.1 (Playwright sees every request of
the page, images included, before it goes out).
Chromium comes from apt (`/usr/bin/chromium`); `playwright install` is never needed.
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.support.servers import free_port, running_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = os.environ.get("RAG_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
EXCEPTION_BOX = '[data-testid="stException"]'
PIXEL_URL = "http://example.invalid/pixel.png"
PIXEL_DOC = ("# Pixel Labs\n\nPixel Labs is headquartered in Daejeon under the logo ![x](" + PIXEL_URL + ") on the "
             "tower.\n\nPixel Labs was founded by Han Jiwoo in 2020; see [the site](http://example.invalid/page).\n")
LOCAL_SCHEMES = ("data", "blob", "about", "chrome", "chrome-extension")


@pytest.fixture
def app_url(tmp_path, data_dir):
    """A running `streamlit run app.py` with its own data dir; yields its URL and stops it afterwards."""
    port = free_port()
    env = dict(os.environ, RAG_DATA_DIR=str(data_dir), ANONYMIZED_TELEMETRY="False")
    url = f"http://127.0.0.1:{port}"
    try:
        with running_server(
                [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                 "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
                 "--server.fileWatcherType", "none"],
                url + "/_stcore/health", tmp_path / "streamlit.log", env=env, cwd=REPO, stop_timeout_s=15,
                name="streamlit"):
            yield url
    finally:
        ARTIFACTS.mkdir(exist_ok=True)
        shutil.copy(tmp_path / "streamlit.log", ARTIFACTS / "streamlit.log")


@pytest.fixture
def page(app_url):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: install it with `apt-get install -y chromium`")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        context = browser.new_context(viewport={"width": 1440, "height": 1000}, locale="ko-KR")
        off_host: list[str] = []  # every request of any page of this context that leaves 127.0.0.1

        def record(request) -> None:
            url = urlsplit(request.url)
            if url.scheme not in LOCAL_SCHEMES and url.hostname != "127.0.0.1":
                off_host.append(request.url)

        context.on("request", record)
        page = context.new_page()
        page.off_host_requests = off_host
        page.set_default_timeout(60_000)
        try:
            yield page
        finally:
            context.close()
            browser.close()


def settle(page, timeout_ms: int = 120_000) -> None:
    """Wait until the script run finished (the 'running' indicator is gone) and no exception box is shown."""
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=timeout_ms)
    page.wait_for_timeout(300)
    boxes = page.locator(EXCEPTION_BOX)
    if boxes.count():
        pytest.fail("Streamlit exception shown:\n" + boxes.first.inner_text()[:3000])


def shot(page, name: str, start_at: str | None = None, height: int | None = None) -> Path:
    """Screenshot into test-artifacts/. Streamlit scrolls inside its main block, so the viewport is made as tall as
    the content (or ``height``, starting at the element with text ``start_at``) for the picture, then restored."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    size = page.viewport_size
    main = '[data-testid="stMain"]'
    if start_at:
        page.get_by_text(start_at, exact=True).first.evaluate("e => e.scrollIntoView({block: 'start'})")
    full = page.evaluate(f"() => document.querySelector('{main}').scrollHeight")
    page.set_viewport_size({"width": size["width"], "height": min(height or full, 6000)})
    page.wait_for_timeout(700)
    if start_at:
        page.get_by_text(start_at, exact=True).first.evaluate("e => e.scrollIntoView({block: 'start'})")
        page.wait_for_timeout(300)
    page.screenshot(path=str(path))
    page.set_viewport_size(size)
    return path


def test_load_samples_ask_and_inspect(app_url, page, tmp_path):
    url = app_url
    # a deep link as the first visit after the start gets this app's frame (sidebar toggle, page titles), not
    # Streamlit's automatic page list of a pages/ folder ("app", "ask", …) with the page running on its own
    page.goto(url + "/inspector")
    page.get_by_text("Trace inspector · 실행 기록").wait_for()
    settle(page)
    sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
    assert "Teaching notes" in sidebar and "Knowledge graph" in sidebar, sidebar
    page.goto(url + "/")
    page.get_by_text("Agentic RAG — demo and inspector").wait_for()
    settle(page)

    # Home: load the sample documents
    page.get_by_role("button", name="Load the sample documents").click()
    page.get_by_text("Ingested", exact=False).first.wait_for(timeout=180_000)
    settle(page)
    shot(page, "home.png")

    # Documents: a bad upload (empty file, wrong extension) is refused in plain words and adds nothing
    page.goto(url + "/documents")
    page.get_by_text("In the knowledge base").wait_for()
    settle(page)
    before = page.locator('[data-testid="stMetricValue"]').first.inner_text()
    empty, wrong = tmp_path / "empty.txt", tmp_path / "photo.exe"
    empty.write_bytes(b"")
    wrong.write_bytes(b"MZ\x90\x00\x03" * 50)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files([str(empty), str(wrong)])
    page.get_by_text("empty.txt").first.wait_for()
    settle(page)
    page.get_by_role("button", name="Ingest").click()
    page.get_by_text("Not ingested").wait_for()
    settle(page)
    assert page.locator('[data-testid="stMetricValue"]').first.inner_text() == before
    shot(page, "documents.png")
    # a document with a remote image and a link in its text (untrusted content) is ingested like any other
    pixel = tmp_path / "pixel.md"
    pixel.write_text(PIXEL_DOC, encoding="utf-8")
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files([str(pixel)])
    page.get_by_text("pixel.md").first.wait_for()
    settle(page)
    page.get_by_role("button", name="Ingest").click()
    page.get_by_text("Ingested 1 of").wait_for(timeout=180_000)  # the refused files may still be listed
    settle(page)
    # the reset box stays open when its confirmation is ticked (the progress bars above vanish on that rerun)
    page.get_by_text("Reset the knowledge base").click()
    page.get_by_text("I understand that this deletes everything").click()
    settle(page)
    assert page.get_by_role("button", name="Reset", exact=True).is_visible()

    # Ask: one click on a sample question runs it; the path, grades, chart and naive answer appear
    page.goto(url + "/ask")
    page.get_by_text("Sample questions").first.wait_for()
    settle(page)
    notes_toggle = page.locator('[data-testid="stSidebar"] input[type="checkbox"]').first
    page.get_by_text("Teaching notes · 해설").first.click()  # on for the rest of the flow
    settle(page)
    assert notes_toggle.is_checked()
    page.locator("button", has_text="How much does an Atlas license").first.click()  # a trap: partial answer
    page.get_by_text("Path through the graph").wait_for(timeout=180_000)
    settle(page)
    page.locator('[data-testid="stGraphVizChart"] svg').first.wait_for()
    page.get_by_text("Naive RAG side by side").wait_for()
    page.locator('[data-testid="stVegaLiteChart"], [data-testid="stArrowVegaLiteChart"]').first.wait_for()
    page.wait_for_timeout(1000)  # let the chart and diagram finish drawing before the pictures
    shot(page, "ask-full.png")
    shot(page, "ask.png", start_at="Answer · 답변", height=1250)

    # Trace inspector: opened from the Ask page, on its last step
    page.get_by_role("button", name="Open this run in the trace inspector").click()
    page.get_by_text("Trace inspector").first.wait_for()
    page.get_by_text("Step through").first.wait_for()
    settle(page)
    assert page.get_by_text("of").count()
    assert notes_toggle.is_checked()  # switching pages from a button kept the sidebar toggle on
    page.get_by_text("🇰🇷").first.wait_for()  # and the inspected step explains itself
    page.locator('[data-testid="stGraphVizChart"] svg').first.wait_for()
    # the step slider moves the highlight: back to the re-route (the trap's vector attempt failed the threshold)
    steps = page.locator("h4", has_text="Step ").first.inner_text()  # "Step 9 of 9: partial_answer"
    last = int(steps.split(" of ")[1].split(":")[0])
    page.get_by_role("slider").first.focus()
    for _ in range(4):
        page.keyboard.press("ArrowLeft")
    page.get_by_text(f"Step {last - 4} of {last}").wait_for()
    settle(page)
    current = page.locator('[data-testid="stGraphVizChart"] svg g.node', has_text=f"#{last - 4}").first
    assert current.locator('path[fill="#fdd663"], polygon[fill="#fdd663"]').count(), "the inspected step is gold"
    page.wait_for_timeout(800)
    shot(page, "inspector.png")

    # Ask: one question through three variants side by side, each with its own path diagram and F-labels (issue 10)
    page.goto(url + "/ask")
    page.get_by_text("Sample questions").first.wait_for()
    settle(page)
    page.locator("textarea").first.fill("연봉 계약은 매년 몇 월에 갱신해?")
    page.get_by_text("Compare variants side by side").first.click()
    settle(page)
    page.get_by_role("button", name="Compare · 비교").click()
    page.get_by_text("CRAG (corrective)").first.wait_for(timeout=180_000)
    settle(page)
    compare = page.locator('[data-testid="stExpander"]', has_text="Compare variants side by side").first
    assert compare.locator('[data-testid="stGraphVizChart"] svg').count() == 3
    assert compare.get_by_text("Failure labels").count() == 3
    page.wait_for_timeout(1000)
    shot(page, "compare.png", start_at="Compare variants side by side · 여러 방식 나란히 비교", height=1500)

    # Knowledge graph: search an entity, its neighbourhood is drawn
    page.goto(url + "/graph")
    page.get_by_text("Knowledge graph").first.wait_for()
    settle(page)
    box = page.get_by_label("Search an entity · 개체 검색")
    box.fill("Atlas")
    box.press("Enter")
    page.get_by_text("Relations with evidence").wait_for()
    settle(page)
    page.locator('[data-testid="stGraphVizChart"] svg').first.wait_for()
    page.wait_for_timeout(800)
    shot(page, "graph.png")

    # Ask: the answer and its citation quote the pixel document; its image and link are shown as text, never loaded
    page.goto(url + "/ask")
    page.get_by_text("Sample questions").first.wait_for()
    settle(page)
    page.locator("textarea").first.fill("Where is Pixel Labs headquartered?")
    page.get_by_role("button", name="Ask · 질문", exact=True).click()
    page.get_by_text("Q: Where is Pixel Labs headquartered?").wait_for(timeout=180_000)
    settle(page)
    page.locator('[data-testid="stExpander"] summary', has_text="pixel.md").first.click()  # the whole chunk
    settle(page)
    assert page.get_by_text(f"![x]({PIXEL_URL})", exact=False).count() >= 2  # in the answer and in the chunk
    assert page.locator('img[src*="example.invalid"], image[href*="example.invalid"]').count() == 0
    page.wait_for_timeout(1500)  # give a stray image request time to show up
    assert page.off_host_requests == [], page.off_host_requests
