"""The Lessons page (AppTest): pick a lesson, one click runs it; the comparison shows each variant's F-labels and the
failure steps drawn red on the expected variant's diagram."""
from __future__ import annotations

from rag.lessons import load_lessons
from rag_ui import replay
from tests.ui.conftest import open_app, texts  # noqa: F401  (open_app is a fixture)


def test_run_a_lesson_from_the_page(open_app):
    at = open_app("app_pages/lessons.py")
    lesson = next(lesson for lesson in load_lessons() if lesson.code == "F6")
    assert "Failure lessons" in texts(at)
    at.selectbox(key="lesson_pick").set_value(lesson.id).run()
    assert lesson.question in texts(at) and "시드" in texts(at)
    at.button(key="lesson_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("F6 on **naive**" in str(m.value) for m in at.success)
    specs = [c.proto.spec for c in at.get("graphviz_chart")]
    assert len(specs) == len(lesson.variants)
    assert replay.FILL_EDITED in specs[0] and 'xlabel="F6 #1"' in specs[0]  # naive's retrieval, the F6 step
    assert replay.FILL_EDITED not in specs[1]  # adaptive avoided it
    [button] = at.get("download_button")
    assert "handout" in button.proto.label
