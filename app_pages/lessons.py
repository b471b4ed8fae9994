"""Failure lessons: one scenario per failure kind F1–F7 of seed 001. One click runs it offline on its own tiny corpus
and shows the variants side by side, with the steps the failure label points at drawn in red."""
from __future__ import annotations

import streamlit as st

from rag import failures, handout
from rag.lessons import load_lessons, run_lesson
from rag.types import RagError
from rag.variants import registry
from rag_ui import replay, resources, widgets
from rag_ui.state import init_state

LESSON_PICK = "lesson_pick"
LESSON_RESULTS = "lesson_results"  # {lesson id: LessonResult} of this session
LESSON_HANDOUTS = "lesson_handouts"  # {lesson id: handout HTML}: built once per result (Graphviz per variant)

init_state()
st.session_state.setdefault(LESSON_RESULTS, {})
st.session_state.setdefault(LESSON_HANDOUTS, {})
s = resources.settings()

st.title("Failure lessons · 실패 사례 수업")
st.caption("Each lesson runs offline on its own tiny corpus, in its own folder: your documents and runs are not "
           "touched. · 각 수업은 자체 소형 코퍼스로 오프라인 실행되며, 사용자의 문서와 실행 기록은 건드리지 않습니다.")
try:
    lessons = load_lessons()
except RagError as exc:
    st.error(f"A lesson file could not be read: {exc}")
    st.stop()
if not lessons:
    st.info("No lesson files in lessons/. Copy one of the examples there (see the README, 'Failure lessons').")
    st.stop()

by_id = {lesson.id: lesson for lesson in lessons}
lesson_id = st.selectbox("Lesson · 수업", list(by_id), key=LESSON_PICK,
                         format_func=lambda i: f"{by_id[i].title['ko']}  ·  {by_id[i].title['en'].split(' — ', 1)[-1]}")
lesson = by_id[lesson_id]

st.markdown(f"### {widgets.md_escape(lesson.title['ko'])}\n{widgets.md_escape(lesson.title['en'])}")
left, right = st.columns(2)
left.markdown("**한국어** · " + widgets.md_escape(lesson.explain["ko"]))
right.markdown("**English** · " + widgets.md_escape(lesson.explain["en"]))
st.markdown(f"**Question · 질문:** {widgets.md_escape(lesson.question)}  \n"
            f"**Variants · 비교 변형:** {', '.join(lesson.variants)} · seed {lesson.seed} · `{lesson.path.name}`")
with st.expander(f"Corpus · 코퍼스 ({len(lesson.corpus)} files)"):
    for name, text in lesson.corpus.items():
        st.markdown(f"`{name}`")
        st.code(text, language="markdown")

if st.button("Run this lesson · 수업 실행", key="lesson_run", type="primary"):
    try:
        with st.spinner("Running the lesson offline… (the first time it ingests the corpus)"):
            st.session_state[LESSON_RESULTS][lesson.id] = run_lesson(lesson, s.data_dir)
            st.session_state[LESSON_HANDOUTS].pop(lesson.id, None)  # the new result's handout, on first show
    except RagError as exc:
        st.error(str(exc))
        st.stop()

result = st.session_state[LESSON_RESULTS].get(lesson.id)
if result is None:
    st.stop()

expected = result.label(lesson.expected_variant)
if result.shows:
    why = widgets.md_escape(expected.reason)  # a label's reason can quote the lesson's corpus
    st.success(f"{lesson.code} on **{lesson.expected_variant}** ({expected.level}): {why}. "
               f"**{lesson.compare}** avoids it." if result.avoided else
               f"{lesson.code} on **{lesson.expected_variant}**: {why}. "
               f"{lesson.compare} shows it too.")
else:
    st.warning(f"{lesson.code} did not show on {lesson.expected_variant} in this run — read the explanation above "
               "for why (e.g. the offline engine cannot produce it).")
st.caption("Red: the steps the failure label points at. · 빨간 칸: 실패 라벨이 가리키는 단계.")
handouts = st.session_state[LESSON_HANDOUTS]
if lesson.id not in handouts:
    handouts[lesson.id] = handout.lesson_handout(result)
st.download_button("Download this lesson as a handout (HTML) · 유인물", handouts[lesson.id],
                   file_name=f"lesson-{lesson.id}.html", mime="text/html", key="lesson_handout")
for col, (variant, run) in zip(st.columns(len(result.runs)), result.runs.items()):
    with col:
        label = registry.info(variant, "label", variant)
        marker = " ← " + lesson.code if variant == lesson.expected_variant else " ✓" if variant == lesson.compare else ""
        st.markdown(f"#### {label}{marker}")
        labels = result.labels[variant]
        st.markdown(f"**F-labels:** `{failures.summary(labels)}`")
        taught = result.label(variant)
        steps = [n - 1 for n in taught.steps] if taught else []
        st.graphviz_chart(replay.mark_steps(run, steps, lesson.code), width="stretch")
        st.caption("Path · 경로: " + " → ".join(run.path))
        widgets.answer_block(run)
        for f in labels:
            st.caption(f"{f.code} ({f.level}): {widgets.md_escape(f.reason)}"
                       + (f" — steps {', '.join(map(str, f.steps))}" if f.steps else ""))
