"""Handouts: a run, a comparison of runs or a failure lesson as one self-contained HTML file for a class.

Everything is inside the file: the diagram as inline SVG (graphviz ``dot``; without it, a plain note in its place),
the path, steps, grades, scores, answer and citations, with inline CSS. A Content-Security-Policy of
``default-src 'none'`` keeps a browser from fetching anything, and every recorded text (questions, documents,
answers, reasons) is HTML-escaped, so a document that contains markup shows as text.

    from rag.handout import run_handout
    Path("run.html").write_text(run_handout(run), encoding="utf-8")
"""
from __future__ import annotations

import html
import re
from typing import Any, Callable, Iterable

from rag.failures import label_run
from rag.trace import Run, now_iso

FILL_MARK = "#f28b82"  # steps a lesson's failure label or a what-if edit points at
COLOR_MARK = "#a50e0e"
DOT_MISSING = ("The diagram needs Graphviz's 'dot' program, which is not installed here "
               "(apt-get install graphviz). The path below lists the same steps in order.")
CSS = """
body{font-family:-apple-system,'Segoe UI','Noto Sans CJK KR','Malgun Gothic',Helvetica,Arial,sans-serif;margin:24px;
color:#202124;line-height:1.45;max-width:1400px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:24px 0 8px;border-bottom:1px solid #dadce0}
h3{font-size:15px;margin:16px 0 6px}.meta{color:#5f6368;font-size:13px}
.grid{display:grid;gap:20px;grid-template-columns:repeat(auto-fit,minmax(420px,1fr))}
.card{border:1px solid #dadce0;border-radius:8px;padding:12px 16px}
.answer{white-space:pre-wrap;background:#f1f3f4;border-radius:6px;padding:10px;font-size:14px}
.path{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px}
table{border-collapse:collapse;width:100%;font-size:12.5px;margin:6px 0}
th,td{border:1px solid #e0e0e0;padding:4px 6px;text-align:left;vertical-align:top}th{background:#f8f9fa}
.correct{color:#188038;font-weight:600}.ambiguous{color:#b06000;font-weight:600}.incorrect{color:#c5221f;font-weight:600}
.label{display:inline-block;border-radius:10px;padding:1px 8px;margin:2px;font-size:12px;background:#fce8e6;color:#a50e0e}
.label.unchecked{background:#f1f3f4;color:#5f6368}.note{color:#5f6368;font-size:12.5px}
.diagram svg{max-width:100%;height:auto}.missing{border:1px dashed #9aa0a6;padding:10px;color:#5f6368}
details{margin:2px 0}summary{cursor:pointer}.doc{white-space:pre-wrap;font-size:12px;color:#3c4043}
tr.marked td{background:#fce8e6}
"""


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


# ---- the diagram ---------------------------------------------------------------------------------------------------

def mark_dot(dot: str, run: Run, step_indices: Iterable[int], label: str) -> str:
    """``dot`` with the nodes of the given 0-based steps drawn red and labelled ``label #n`` (a later DOT statement
    for a node adds to its attributes)."""
    numbers: dict[str, list[int]] = {}
    for index in step_indices:
        if 0 <= index < len(run.steps):
            numbers.setdefault(run.steps[index].node, []).append(index + 1)
    marks = [f'  "{node}" [fillcolor="{FILL_MARK}", color="{COLOR_MARK}", penwidth=4, fontcolor="black", '
             f'xlabel="{label} ' + " ".join(f"#{n}" for n in found) + '"];' for node, found in numbers.items()]
    if not marks:
        return dot
    return dot.rstrip().removesuffix("}") + "\n".join(marks) + "\n}"


def run_dot(run: Run, marked: Iterable[int] = (), label: str = "") -> str:
    """The variant's diagram with the run's path (the app's own drawing, ``rag_ui.diagram``), marks added."""
    from rag_ui.diagram import agent_dot  # pure DOT text, no Streamlit

    return mark_dot(agent_dot(run), run, marked, label)


def svg(dot: str) -> str | None:
    """Inline SVG of ``dot`` (no XML prolog), or None when Graphviz's ``dot`` program is missing."""
    import graphviz

    try:
        data = graphviz.Source(dot).pipe(format="svg", encoding="utf-8")
    except graphviz.ExecutableNotFound:
        return None
    data = re.sub(r"^\s*<\?xml[^>]*>\s*", "", data)
    data = re.sub(r"<!DOCTYPE[^>]*>\s*", "", data)
    return re.sub(r"<!--.*?-->\s*", "", data, flags=re.S)


def diagram_html(run: Run, marked: Iterable[int] = (), label: str = "") -> str:
    picture = svg(run_dot(run, marked, label))
    if picture is None:
        return f'<div class="missing">{esc(DOT_MISSING)}</div>'
    return f'<div class="diagram">{picture}</div>'


# ---- sections of one run ----------------------------------------------------------------------------------------

def path_html(run: Run) -> str:
    from rag_ui.diagram import path_text  # the app's own path line (pure text, no Streamlit)

    return f'<p class="path"><b>Path · 경로:</b> {esc(path_text(run) or "(no steps)")}</p>'


def answer_html(run: Run) -> str:
    flags = [name for name, on in (("abstained · 답변 보류", run.abstained), ("partial · 부분 답변", run.partial)) if on]
    out = [f'<h3>Answer · 답변{esc(" — " + ", ".join(flags)) if flags else ""}</h3>',
           f'<div class="answer">{esc(run.answer)}</div>']
    if run.citations:
        out.append("<h3>Citations · 출처</h3><ol>")
        for c in run.citations:
            where = f"{c.source}" + (f" #{c.chunk_index}" if c.chunk_index is not None else "")
            out.append(f'<li><b>{esc(where)}</b><div class="doc">{esc(c.text)}</div></li>')
        out.append("</ol>")
    return "\n".join(out)


def labels_html(run: Run) -> str:
    labels = label_run(run)
    if not labels:
        return '<p class="note">F-labels (seed 001): none</p>'
    items = "".join(f'<span class="label {esc(f.level)}" title="{esc(f.reason)}">{esc(f.code)}'
                    f'{"?" if f.level == "unchecked" else ""}</span>' for f in labels)
    reasons = "".join(f"<li><b>{esc(f.code)}</b> ({esc(f.level)}): {esc(f.reason)}"
                      + (f" — steps {esc(', '.join(map(str, f.steps)))}" if f.steps else "") + "</li>" for f in labels)
    return f'<p>F-labels (seed 001): {items}</p><ul class="note">{reasons}</ul>'


def attempts_html(run: Run) -> str:
    if not run.attempts:
        return ""
    rows = "".join(f"<tr><td>{a.number}</td><td>{esc(a.strategy)}</td><td>{esc(a.query)}</td>"
                   f"<td>{'' if a.quality is None else f'{a.quality:.2f}'}</td><td>{esc(a.threshold)}</td>"
                   f"<td>{a.n_documents}</td><td>{a.n_correct}</td><td>{esc(a.status)}</td></tr>" for a in run.attempts)
    return ("<h3>Attempts and quality scores · 시도와 품질 점수</h3><table><tr><th>#</th><th>strategy</th><th>query</th>"
            f"<th>quality</th><th>threshold</th><th>docs</th><th>correct</th><th>status</th></tr>{rows}</table>")


def steps_html(run: Run, marked: Iterable[int] = ()) -> str:
    marked = set(marked)
    rows = []
    for s in run.steps:
        docs = ""
        if s.documents:
            items = []
            for i, d in enumerate(s.documents):
                grade = (f'<span class="{esc(d.grade)}">{esc(d.grade)}</span>'
                         + (f" {d.grade_score:.2f}" if d.grade_score is not None else "")) if d.grade else "not graded"
                items.append(f"<details><summary>[{i}] {esc(d.source)} · score {d.score:.3f} · {grade}"
                             f"{' — ' + esc(d.grade_reason) if d.grade_reason else ''}</summary>"
                             f'<div class="doc">{esc(d.text)}</div></details>')
            docs = "".join(items)
        edit = (s.output or {}).get("what_if")
        rows.append(f'<tr class="{"marked" if s.index in marked else ""}"><td>{s.index + 1}</td><td>{esc(s.node)}</td>'
                    f"<td>{esc(s.decision)}</td><td>{esc(s.reason)}"
                    + (f"<br><b>what-if:</b> {esc(edit.get('edit'))} (recorded: {esc(edit.get('was'))})" if edit else "")
                    + f"{docs}</td><td>{esc(s.status)}</td><td>{s.duration_ms:.0f}</td><td>{len(s.model_calls)}</td></tr>")
    return ("<h3>Steps · 단계</h3><table><tr><th>#</th><th>node</th><th>decision</th><th>reason, documents and grades"
            "</th><th>status</th><th>ms</th><th>calls</th></tr>" + "".join(rows) + "</table>")


def run_section(run: Run, marked: Iterable[int] = (), label: str = "", heading: str | None = None) -> str:
    marked = list(marked)
    lineage = ""
    if run.replay.get("parent_run_id"):
        edit = run.replay.get("edit") or {}
        lineage = (f'<p class="note">What-if fork of run {esc(run.replay["parent_run_id"])} at step '
                   f'{int(run.replay.get("step", 0)) + 1} ({esc(run.replay.get("node"))}): {esc(edit.get("text"))} '
                   f'(recorded: {esc(edit.get("was"))})</p>')
    engine = run.engine.get("engine") or run.engine.get("name") or "-"
    return "\n".join([
        f"<h2>{esc(heading or run.variant)}</h2>",
        f'<p class="meta">variant {esc(run.variant)} · engine {esc(engine)} · run {esc(run.run_id)} · '
        f'{esc(run.created_at[:19])} · threshold {esc(run.settings.get("threshold"))} · stop {esc(run.stop_reason)}'
        f" · {run.llm_calls} model call(s) · {run.wall_ms:.0f} ms</p>",
        lineage, diagram_html(run, marked, label), path_html(run), answer_html(run), labels_html(run),
        attempts_html(run), steps_html(run, marked)])


# ---- whole documents ------------------------------------------------------------------------------------------------

def page(title: str, body: str, intro: str = "") -> str:
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="ko"><head><meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "img-src data:\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{esc(title)}</h1>", intro, body,
        f'<p class="note">Agentic RAG Inspector handout · {esc(now_iso()[:19])} · one file, no external requests.</p>',
        "</body></html>"])


def run_handout(run: Run) -> str:
    """One run: diagram, path, answer, citations, F-labels, attempts, steps with grades. A fork marks its edit."""
    marked = [int(run.replay["step"])] if run.replay.get("parent_run_id") else []
    intro = f"<p><b>Q:</b> {esc(run.question)}</p>"
    return page(f"Run {run.run_id} · {run.variant}", run_section(run, marked, "what-if"), intro)


def handout_for(run: Run, get_run: Callable[[str], Run | None]) -> str:
    """One run's handout; a fork's beside its parent (``get_run``: a ``RunStore.get``) while the parent is stored."""
    parent_id = run.replay.get("parent_run_id")
    parent = get_run(parent_id) if parent_id else None
    return fork_handout(parent, run) if parent else run_handout(run)


def comparison_handout(runs: list[Run], title: str | None = None, intro: str = "",
                       marked: dict[str, list[int]] | None = None, label: str = "",
                       headings: list[str] | None = None) -> str:
    """Runs side by side (e.g. variants on one question, or a parent and its fork); ``marked``: run id -> 0-based
    steps to draw red; ``headings``: one per run (default: the variant)."""
    marked = marked or {}
    headings = headings or [r.variant for r in runs]
    questions = list(dict.fromkeys(r.question for r in runs))
    intro = intro + "".join(f"<p><b>Q:</b> {esc(q)}</p>" for q in questions)
    cards = "".join(f'<div class="card">{run_section(r, marked.get(r.run_id, []), label, heading)}</div>'
                    for r, heading in zip(runs, headings))
    return page(title or "Comparison · " + " vs ".join(r.variant for r in runs), f'<div class="grid">{cards}</div>',
                intro)


def fork_handout(parent: Run, fork: Run) -> str:
    step = int(fork.replay.get("step", 0))
    edit = (fork.replay.get("edit") or {}).get("text", "")
    intro = f"<p>What-if: step {step + 1} ({esc(fork.replay.get('node'))}) set to <b>{esc(edit)}</b>.</p>"
    return comparison_handout([parent, fork], f"What-if fork · {parent.run_id} → {fork.run_id}", intro,
                              {parent.run_id: [step], fork.run_id: [step]}, "what-if",
                              [f"Parent · 원래 실행 ({parent.variant})", f"Fork · 가정 실행 ({fork.variant})"])


def lesson_handout(result: Any) -> str:
    """A failure lesson (``rag.lessons.LessonResult``): explanation in Korean and English, corpus, the variants side
    by side with the steps the taught label points at drawn red."""
    lesson = result.lesson
    marked = {}
    for variant, run in result.runs.items():
        found = result.label(variant)
        marked[run.run_id] = [n - 1 for n in found.steps] if found else []
    corpus = "".join(f"<details><summary>{esc(name)}</summary><div class=\"doc\">{esc(text)}</div></details>"
                     for name, text in lesson.corpus.items())
    intro = (f'<div class="grid"><div class="card"><h3>{esc(lesson.title["ko"])}</h3>'
             f'<p style="white-space:pre-wrap">{esc(lesson.explain["ko"])}</p></div>'
             f'<div class="card"><h3>{esc(lesson.title["en"])}</h3>'
             f'<p style="white-space:pre-wrap">{esc(lesson.explain["en"])}</p></div></div>'
             f'<p class="note">seed {esc(lesson.seed)} · expected on {esc(lesson.expected_variant)}, avoided by '
             f'{esc(lesson.compare)} · corpus:</p>{corpus}')
    return comparison_handout(list(result.runs.values()), f"Lesson {lesson.code} · {lesson.title['en']}", intro,
                              marked, lesson.code)
