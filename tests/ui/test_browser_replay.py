"""What-if replay and handouts in a real browser (headless Chromium, `streamlit run app.py` on 127.0.0.1).

Flow: a recorded agentic run → the trace inspector → step 'grade_documents' → 'What if?' → flip the correct document
to incorrect → continue → the fork opens beside its parent, the edited step red on both diagrams (fork.png) →
'Download a handout' → the file opens from disk with every request outside it refused and recorded: there are none;
it shows the path and the answer (handout.png). Screenshots go to test-artifacts/ and docs/screenshots/.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from rag.engines import get_engine
from rag.runstore import RunStore
from rag.variants import run_question
from tests.support.kb import build_kb
from tests.test_replay import CORPUS, QUESTION
from tests.ui.test_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, REPO, app_url, page, settle, shot  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCREENSHOTS = REPO / "docs" / "screenshots"


def keep_screenshot(path: Path) -> None:
    """Refresh docs/screenshots/ only when asked (RAG_UPDATE_SCREENSHOTS=1): a test run leaves the tree clean."""
    if os.environ.get("RAG_UPDATE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, SCREENSHOTS / path.name)
MARK = "#f28b82"  # rag.handout.FILL_MARK: the edited step


@pytest.fixture
def recorded_run(data_dir):
    """One agentic run recorded (with its checkpoints) in the data dir the app will open."""
    kb = build_kb(data_dir, CORPUS)
    run = run_question(QUESTION, kb=kb, engine=get_engine(kb.settings), settings=kb.settings, variant="agentic",
                       store=RunStore(data_dir))
    kb.close()
    return run


def choose(page, label: str, text: str) -> None:
    """Pick an option of a Streamlit selectbox the way a keyboard user does: open it, type, Enter."""
    page.locator('[data-testid="stSelectbox"]', has_text=label).locator("input").click()
    page.keyboard.type(text, delay=40)
    page.get_by_role("option", name=text).first.wait_for()  # the list is filtered to the typed option
    page.wait_for_timeout(200)
    page.keyboard.press("Enter")
    settle(page)


def _marked_nodes(page) -> int:
    charts = page.locator('[data-testid="stGraphVizChart"] svg')
    return sum(1 for i in range(charts.count())
               if charts.nth(i).locator(f'g.node path[fill="{MARK}"], g.node polygon[fill="{MARK}"]').count())


def test_fork_from_the_inspector_and_open_its_handout_offline(recorded_run, app_url, page, tmp_path, data_dir):
    run = recorded_run
    grade = next(s for s in run.steps if s.node == "grade_documents")
    index = next(i for i, d in enumerate(grade.documents) if d.grade == "correct")
    page.goto(f"{app_url}/inspector?run={run.run_id}")
    page.get_by_text("Trace inspector · 실행 기록").wait_for()
    page.get_by_text("Step through").first.wait_for()
    settle(page)

    # step back to grade_documents with the keyboard, as a user would with the slider
    page.get_by_role("slider").first.focus()
    for _ in range(len(run.steps) - (grade.index + 1)):
        page.keyboard.press("ArrowLeft")
    page.get_by_text(f"Step {grade.index + 1} of {len(run.steps)}: grade_documents").wait_for()
    settle(page)

    page.get_by_text("What if? · 만약 이 판단이 달랐다면").click()
    page.get_by_text("Grade it as · 이렇게 채점").wait_for()
    if index:
        choose(page, "Document · 문서", f"[{index}]")
    choose(page, "Grade it as", "incorrect")
    page.get_by_role("button", name="Continue from here · 여기서 이어서 실행").click()
    page.get_by_text("What-if fork · 가정 실행", exact=False).first.wait_for(timeout=120_000)
    settle(page)

    store = RunStore(data_dir)
    [link] = store.forks(run.run_id)
    fork = store.get(link["run_id"])
    assert fork.replay["edit"] == {"field": "grade", "index": index, "value": "incorrect", "was": "correct",
                                   "text": f"grade[{index}] = incorrect"}
    assert fork.path != run.path and store.get(run.run_id).path == run.path
    shown = page.locator('[data-testid="stMain"]').inner_text()
    assert "partial_answer" in shown and "What-if fork" in shown, shown[:2000]
    assert _marked_nodes(page) >= 2, "the edited step is red on the parent's and the fork's diagram"
    page.wait_for_timeout(800)
    keep_screenshot(shot(page, "fork.png"))

    # the handout: downloaded from the inspector, opened from disk with the network refused and watched
    with page.expect_download() as download:
        page.get_by_role("button", name="Download a handout (HTML) · 유인물").click()
    path = tmp_path / "handout.html"
    download.value.save_as(path)
    context = page.context.browser.new_context(viewport={"width": 1300, "height": 900}, locale="ko-KR")
    outside: list[str] = []

    def refuse(route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context.route("**/*", refuse)
    handout = context.new_page()
    requested: list[str] = []
    handout.on("request", lambda request: requested.append(request.url))
    handout.goto(path.as_uri())
    handout.wait_for_load_state("load")
    handout.wait_for_timeout(500)
    assert outside == [] and requested == [path.as_uri()], (outside, requested)
    body = handout.inner_text("body")
    path_line = " → ".join(f"{s.index + 1} {s.node}" + (" ✗" if s.status == "failed" else "") for s in fork.steps)
    assert f"Path · 경로: {path_line}" in body
    assert fork.answer.splitlines()[0].strip() in body and "Answer · 답변" in body
    assert handout.locator("svg").count() == 2  # parent and fork, inline
    size = handout.evaluate("() => document.body.scrollHeight")
    handout.set_viewport_size({"width": 1300, "height": min(size, 5000)})
    handout.screenshot(path=str(ARTIFACTS / "handout.png"))
    keep_screenshot(ARTIFACTS / "handout.png")
    context.close()



def test_a_failure_lesson_in_the_browser(app_url, page):
    """The Lessons page: the F2 lesson runs with one click and lands on the comparison, F2's steps red (lessons.png)."""
    page.goto(f"{app_url}/lessons")
    page.get_by_text("Failure lessons · 실패 사례 수업").wait_for()
    settle(page)
    choose(page, "Lesson · 수업", "F2")
    page.get_by_text("Mixed", exact=False).first.wait_for()
    page.get_by_role("button", name="Run this lesson · 수업 실행").click()
    page.get_by_text("F2 on agentic", exact=False).first.wait_for(timeout=180_000)
    settle(page)
    page.locator('[data-testid="stGraphVizChart"] svg').nth(1).wait_for()
    page.wait_for_timeout(1000)
    assert _marked_nodes(page) >= 1, "the F2 steps are red on agentic's diagram"
    assert page.get_by_text("Download this lesson as a handout", exact=False).count()
    page.wait_for_timeout(800)
    keep_screenshot(shot(page, "lessons.png"))
