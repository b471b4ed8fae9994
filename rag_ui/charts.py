"""Charts drawn from a recorded run: context quality per attempt against the threshold."""
from __future__ import annotations

import altair as alt
import pandas as pd

from rag.trace import Run


def quality_frame(run: Run) -> pd.DataFrame:
    """One row per attempt: attempt, label, strategy, query, quality, threshold, passed, status, documents, correct,
    and the next step evaluate_context recorded for it."""
    threshold = run.settings.get("threshold")
    # what evaluate_context decided after each attempt, as recorded (the UI never re-decides)
    decided = {s.attempt: s.decision for s in run.steps if s.node == "evaluate_context" and s.decision}
    rows = []
    for a in run.attempts:
        limit = a.threshold if a.threshold is not None else threshold
        rows.append({
            "attempt": a.number,
            "label": f"{a.number} · {a.strategy}",
            "strategy": a.strategy,
            "query": a.query,
            "quality": a.quality,
            "threshold": limit,
            "passed": (a.quality is not None and limit is not None and a.quality >= limit),
            "status": a.status,
            "documents": a.n_documents,
            "correct": a.n_correct,
            "next step": decided.get(a.number, ""),
        })
    return pd.DataFrame(rows, columns=["attempt", "label", "strategy", "query", "quality", "threshold", "passed",
                                       "status", "documents", "correct", "next step"])


def quality_chart(run: Run) -> alt.LayerChart | None:
    """Bars of context quality per attempt (orange below the threshold, blue at/above) and the threshold as a
    red rule; None when the run has no attempts (direct answers)."""
    frame = quality_frame(run)
    if frame.empty:
        return None
    frame = frame.assign(quality=frame["quality"].fillna(0.0),
                         result=frame["passed"].map({True: "≥ threshold", False: "< threshold"}))
    x = alt.X("label:N", title="attempt · strategy", sort=list(frame["label"]), axis=alt.Axis(labelAngle=0))
    bars = alt.Chart(frame).mark_bar(size=38).encode(
        x=x,
        y=alt.Y("quality:Q", title="context quality", scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("result:N", title=None,
                        scale=alt.Scale(domain=["≥ threshold", "< threshold"], range=["#1a73e8", "#e8710a"])),
        tooltip=["attempt", "strategy", "query", "quality", "threshold", "status", "documents", "correct"],
    )
    text = bars.mark_text(dy=-8, color="black").encode(text=alt.Text("quality:Q", format=".2f"), color=alt.value("black"))
    rule = alt.Chart(frame).mark_rule(color="#d93025", strokeDash=[6, 4], size=2).encode(
        y="threshold:Q", tooltip=["threshold"])
    # the dashed line says what it is (the legend only names the bar colours)
    # (right of the last bar, where no bar hides it)
    label = alt.Chart(frame.tail(1).assign(caption=lambda f: "threshold · 기준 " + f["threshold"].map("{:.2f}".format))
                      ).mark_text(align="left", dx=24, dy=-7, color="#d93025", fontWeight="bold").encode(
        y="threshold:Q", x=x, text="caption:N")
    return (bars + text + rule + label).properties(height=240)
