"""Ask page (AppTest): a sample question asked offline shows the path, the grades, the score chart data, the naive
answer side by side and what the generator was given."""
from __future__ import annotations

import json

from rag.runstore import RunStore
from rag_ui import diagram, resources, widgets
from rag_ui.state import ASK_RESULT, COMPARE_RUN_ID, INSPECT_RUN_ID, QUESTION, TEACHING_NOTES
from tests.ui.conftest import texts


def sample(route: str, kind: str = "covered") -> dict:
    return next(q for q in resources.sample_questions() if q["expected_route"] == route and q.get("kind") == kind)


def graphviz_specs(at) -> list[str]:
    return [e.proto.spec for e in at.get("graphviz_chart")]


def test_sample_question_shows_path_grades_scores_and_naive(open_app, samples):
    q = sample("vector")
    at = open_app("app_pages/ask.py")
    at.button(key=f"sample_{q['id']}").click().run()  # one click fills the box and asks
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state[QUESTION] == q["question"]
    result = at.session_state[ASK_RESULT]
    run, naive = result["run"], result["naive"]
    assert run.variant == "agentic" and naive.variant == "naive"
    assert run.route == "vector" and run.steps and run.answer
    # the inspector will open on the run just asked (naive is stored after it), with naive as the comparison
    assert at.session_state[INSPECT_RUN_ID] == run.run_id
    assert at.session_state[COMPARE_RUN_ID] == naive.run_id

    # the steps were written live into a status box as each one finished, one line per step
    statuses = {s.label.split(":")[0]: s for s in at.get("status")}
    assert set(statuses) == {"agentic", "naive"}
    lines = [m.value for m in statuses["agentic"].markdown]
    assert len(lines) == len(run.steps) and all(f"{i + 1}. **{st.node}**" in line
                                               for i, (st, line) in enumerate(zip(run.steps, lines)))
    assert len(statuses["naive"].markdown) == len(naive.steps)

    # citations open the cited chunk, read back from the knowledge base
    assert run.citations
    labels = [e.label for e in at.expander]
    for n, c in enumerate(run.citations, start=1):
        assert any(label.startswith(f"[{n}] {c.source}") for label in labels)
    chunk = resources.knowledge_base().get_chunk(run.citations[0].id)
    assert chunk is not None and any(t.value == chunk.text for t in at.text)
    # cited text is shown as plain text: "> " + a chunk's "## heading" rendered as a page-sized title before
    assert not any(m.value.startswith("**Cited text · 인용 문장**\n\n>") for m in at.markdown)
    assert not any(c.text.strip() and c.text.strip() in m.value for c in run.citations for m in at.markdown
                   if "Cited" in m.value)

    # the path: highlighted and numbered on the diagram, and as text
    spec = graphviz_specs(at)[0]
    for number, src, dst in diagram.taken_edges(run):
        assert f'"{src}" -> "{dst}" [label=" ' in spec and str(number) in spec
    assert diagram.FILL_VISITED in spec
    assert "Path · 경로: " + diagram.path_text(run) in texts(at)

    # per-document grades for every attempt
    grades = next(d.value for d in at.dataframe if {"grade", "reason", "attempt"} <= set(d.value.columns))
    assert len(grades) == len(run.documents) > 0
    assert set(grades["attempt"]) == {a.number for a in run.attempts}
    # every document the searches returned is graded; the chunks the answer read next to them (small-to-big
    # context) say that they were not
    context = {i for st in run.steps for i in (st.inputs.get("context_neighbours") or {})}
    graded = ~grades["id"].isin(context)
    assert grades["grade"][graded].str.contains("correct|ambiguous|incorrect").all()
    assert (grades["grade"][~graded] == widgets.CONTEXT_LABEL).all()

    # the quality-per-attempt chart and its data (quality vs threshold)
    assert at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
    scores = next(d.value for d in at.dataframe if {"quality", "threshold"} <= set(d.value.columns))
    assert list(scores["quality"]) == [a.quality for a in run.attempts]
    assert set(scores["threshold"]) == {run.settings["threshold"]}

    # naive RAG side by side: its answer, its documents, the difference in calls / tokens / time
    assert "Naive RAG side by side · 단순 RAG와 비교" in [s.value for s in at.subheader]
    assert any(m.value == widgets.answer_markdown(naive.answer) for m in at.markdown)  # naive's answer, as drawn
    naive_docs = next(d.value for d in at.dataframe if list(d.value.columns) == ["source", "chunk", "retrieval score",
                                                                                   "text"])
    assert len(naive_docs) == len(naive.documents) > 0
    assert "compared with naive RAG on the same index" in texts(at)
    assert "model calls" in [m.label for m in at.metric]

    # only the context / only the prompt the generator got
    assert any(t.label.startswith("Only context") for t in at.tabs)
    assert run.generator_context and any(run.generator_context == t.value for t in at.text)

    # both runs are in the run store
    store = RunStore(samples)
    assert store.get(run.run_id) is not None and store.get(naive.run_id) is not None


def test_teaching_notes_explain_each_step_in_korean_and_english(open_app, samples):
    q = sample("graph")
    at = open_app("app_pages/ask.py", **{TEACHING_NOTES: True, QUESTION: q["question"]})
    at.button(key="ask").click().run()
    assert not at.exception
    run = at.session_state[ASK_RESULT]["run"]
    notes = [m.value for m in at.markdown if "🇰🇷" in m.value]
    assert len(notes) == len(run.steps)
    assert "질문을 읽고" in notes[0] and "Chosen strategy" in notes[0]


def test_ask_without_naive_and_other_settings(open_app, samples):
    at = open_app("app_pages/ask.py", **{QUESTION: sample("vector")["question"], "ask_with_naive": False,
                                     "ask_threshold": 0.95, "ask_max_attempts": 1})
    at.button(key="ask").click().run()
    assert not at.exception
    run = at.session_state[ASK_RESULT]["run"]
    assert at.session_state[ASK_RESULT]["naive"] is None
    assert run.settings["threshold"] == 0.95 and run.settings["max_attempts"] == 1
    assert len(run.attempts) <= 1
    assert "Naive RAG side by side · 단순 RAG와 비교" not in [s.value for s in at.subheader]
    assert json.loads(json.dumps(run.to_dict()))["settings"]["threshold"] == 0.95


def test_environment_settings_are_the_defaults_within_the_widget_ranges(open_app, monkeypatch):
    monkeypatch.setenv("RAG_THRESHOLD", "0.75")
    monkeypatch.setenv("RAG_MAX_ATTEMPTS", "40")  # above the page's range: clamped, never an exception
    at = open_app("app_pages/ask.py")
    assert at.slider(key="ask_threshold").value == 0.75
    assert at.number_input(key="ask_max_attempts").value == 10
    assert "knowledge base is empty" in texts(at)


def test_sample_questions_are_grouped_by_route_and_readable(open_app):
    """The buttons cut long questions to "입사하고 1년이 지나면 연차 …": each one carries the whole question as its
    tooltip, under a heading per route (vector, graph, traps, web, direct)."""
    questions = resources.sample_questions()
    groups = widgets.sample_groups(questions)
    assert [title.split(" (")[0].split(":")[0] for title, _ in groups][:5] == [
        "Document search · 문서 검색", "Relations across documents · 관계 추적", "Traps",
        "Recent or outside facts · 최신·외부 정보", "No retrieval needed · 검색 없이 바로 답변"]
    assert sorted(q["id"] for _, g in groups for q in g) == sorted(q["id"] for q in questions)
    traps = dict(groups)[next(t for t, _ in groups if t.startswith("Traps"))]
    assert traps and all(q["kind"] == "uncovered" for q in traps)

    at = open_app("app_pages/ask.py")
    shown = texts(at)
    assert all(f"**{title}**" in shown for title, _ in groups)
    for q in questions:
        button = at.button(key=f"sample_{q['id']}")
        assert button.label == q["question"] and button.proto.help == q["question"]


def test_empty_question_says_what_to_do_and_naive_variant_explains_its_missing_scores(open_app, samples):
    at = open_app("app_pages/ask.py")
    at.button(key="ask").click().run()  # nothing typed: a hint instead of silence
    assert "Type a question first" in texts(at) and at.session_state[ASK_RESULT] is None

    at = open_app("app_pages/ask.py", **{QUESTION: sample("vector")["question"], "ask_variant": "naive"})
    at.button(key="ask").click().run()
    assert not at.exception
    run = at.session_state[ASK_RESULT]["run"]
    assert run.variant == "naive" and not run.attempts and run.documents
    shown = texts(at)
    assert "never scores its context" in shown and "answered directly" not in shown  # naive did retrieve


def test_naive_with_nothing_retrieved_says_so(open_app):
    at = open_app("app_pages/ask.py", **{QUESTION: sample("vector")["question"]})  # empty knowledge base
    at.button(key="ask").click().run()
    assert not at.exception
    assert not at.session_state[ASK_RESULT]["naive"].documents
    assert "Naive RAG retrieved no documents." in texts(at)
    assert not any(list(d.value.columns) == ["source", "chunk", "retrieval score", "text"] for d in at.dataframe)
