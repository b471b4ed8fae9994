"""What-if replay: fork a recorded run at one step, with one recorded decision edited, and let it continue.

This is LangGraph's own time travel, not a re-run: every graph variant runs with the SQLite checkpointer
(``rag.variants.base.checkpointed``; thread id = run id). To fork run P at step N (node X):

1. walk P's checkpoints back from its last one (``get_state_history``) to the checkpoint *before* X ran; its
   pending task holds exactly what X returned (``StateSnapshot.tasks[0].result``);
2. edit that update (a document's grade, the quality score, the threshold, the chosen route, the query) and write
   it with ``update_state(config, update, as_node=X)`` — as if X had decided so; X's routing runs on the edit;
3. resume from the new checkpoint (``stream(None, config)``) and record the steps that follow.

The fork is a new run (``run.replay``: parent id, step, node, edit, thread, checkpoints) saved next to its
parent; the parent's trace and checkpoints are left as they were.

    from rag.replay import fork_run
    fork = fork_run(store, parent_id, step=2, edit="grade[0]=correct", kb=kb, engine=engine, settings=settings)
"""
from __future__ import annotations

import copy
import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Callable

from rag.config import Settings
from rag.deadline import run_deadline
from rag.runstore import RunStore
from rag.trace import Run, Step
from rag.types import DecisionEngine, Grade, RagError
from rag.variants import registry
from rag.variants.agentic import recursion_limit
from rag.variants.base import (
    GRADE_LABELS,
    KnowledgeBaseLike,
    OnStep,
    TraceRecorder,
    apply_answer,
    grade_counts,
    open_checkpointer,
)
from rag.variants.graphrun import stream_graph

# What can be edited, with the form the CLI takes (``--set``). Each edit applies to the update of one kind of step.
EDIT_FORMS: dict[str, str] = {
    "grade": "grade[I]=correct|ambiguous|incorrect — the grade of document I (0-based) on a grading step",
    "quality": "quality=0.85 — the context quality score on evaluate_context (the next action is decided again)",
    "threshold": "threshold=0.4 — the quality threshold from evaluate_context on (the next action is decided again)",
    "route": "route=vector|graph|web|direct — the strategy chosen on classify, or the target of re_route",
    "query": "query=TEXT — the query that the next retrieval uses (classify or rewrite_query)",
}
# taken from the parent's recorded settings
RUN_SETTINGS = ("threshold", "max_attempts", "top_k", "graph_hops", "context_neighbours", "context_in_document")
GRADE_SCORES = {"correct": 1.0, "ambiguous": 0.5, "incorrect": 0.0}  # what a grade set by hand scores
_EDIT = re.compile(r"^\s*(?P<field>[a-z_]+)\s*(?:\[\s*(?P<index>-?\d+)\s*\])?\s*=\s*(?P<value>.*?)\s*$", re.S)


@dataclass(frozen=True)
class Edit:
    """One edited decision: ``field[index] = value`` (index only for grades)."""

    field: str
    value: str
    index: int | None = None

    @classmethod
    def parse(cls, text: str) -> "Edit":
        """``"grade[2]=correct"`` -> ``Edit("grade", "correct", 2)``; raises ``RagError`` with the accepted forms."""
        match = _EDIT.match(text or "")
        if not match or match["field"] not in EDIT_FORMS or not match["value"]:
            raise RagError(f"cannot read the edit {text!r}; use one of: " + "; ".join(EDIT_FORMS.values()))
        index = int(match["index"]) if match["index"] is not None else None
        if (index is None) != (match["field"] != "grade"):
            raise RagError(f"{match['field']!r} takes {'an index: grade[I]=LABEL' if index is None else 'no index'}")
        return cls(match["field"], match["value"], index)

    def __str__(self) -> str:
        return f"{self.field}{'' if self.index is None else f'[{self.index}]'} = {self.value}"


# ---- finding the step's checkpoint ------------------------------------------------------------------------------

def _config(thread_id: str, checkpoint_id: str | None = None) -> dict[str, Any]:
    configurable = {"thread_id": thread_id, "checkpoint_ns": ""}
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def _checkpoint_id(config: dict[str, Any] | None) -> str | None:
    return ((config or {}).get("configurable") or {}).get("checkpoint_id")


def lineage(graph: Any, thread_id: str, head: str) -> list[Any]:
    """The run's checkpoints, oldest first: from ``head`` back through each parent (a thread holds the forks of
    its run too, so the newest checkpoint of the thread is not necessarily this run's)."""
    by_id = {_checkpoint_id(s.config): s for s in graph.get_state_history(_config(thread_id))}
    chain, current = [], by_id.get(head)
    while current is not None:
        chain.append(current)
        current = by_id.get(_checkpoint_id(current.parent_config))
    return chain[::-1]


def recorded_steps(values: dict[str, Any]) -> int:
    """How many steps a state has recorded: its ``steps`` plus those a prebuilt ToolNode carried in its messages'
    artifacts (``graphrun.steps_in``; loaded back from a checkpoint, such an artifact's step is a plain dict)."""
    carried = sum(1 for m in values.get("messages") or []
                  if isinstance(getattr(m, "artifact", None), dict) and m.artifact.get("step") is not None)
    return len(values.get("steps") or []) + carried


def checkpoint_before(chain: list[Any], step: int, node: str) -> Any:
    """The checkpoint where ``node`` was about to run as step ``step`` (``step`` steps recorded so far), with the
    update it returned."""
    for snapshot in reversed(chain):
        tasks = [t for t in snapshot.tasks if t.name == node and isinstance(t.result, dict)]
        if recorded_steps(snapshot.values) == step and node in snapshot.next and tasks:
            return snapshot, tasks[0].result
    raise RagError(f"no checkpoint before step {step} ({node}) was found: the run's checkpoints are incomplete")


# ---- edits -------------------------------------------------------------------------------------------------------

def _the_step(update: dict[str, Any], node: str) -> Step:
    steps = [s for s in update.get("steps") or [] if isinstance(s, Step) and s.node == node]
    if len(steps) != 1:
        raise RagError(f"step {node} recorded {len(steps)} steps in one update; it cannot be edited")
    return steps[0]


def _mark(step: Step, edit: Edit, was: Any) -> None:
    step.output = {**step.output, "what_if": {"edit": str(edit), "was": was}}
    step.reason = f"what-if: {edit} (recorded: {was}). {step.reason}".strip()


def _edit_grade(update: dict[str, Any], node: str, edit: Edit, variant: str, before: dict[str, Any],
                settings: Settings) -> Any:
    grades = update.get("grades")
    if "grades" not in update and "grade" in update:
        raise RagError(f"step {node} graded the whole tool result as one (seed 001's bundle grade) and decided "
                       "the next step inside it: per-document grades of this variant cannot be edited yet")
    if not isinstance(grades, list) or not grades:
        raise RagError(f"step {node} graded no documents: there is no grade to edit")
    label = edit.value.strip().lower()
    if label not in GRADE_LABELS:
        raise RagError(f"a grade is one of {', '.join(GRADE_LABELS)}, not {edit.value!r}")
    if not 0 <= int(edit.index) < len(grades):
        raise RagError(f"step {node} graded {len(grades)} document(s): grade[{edit.index}] is out of range "
                       f"(use 0..{len(grades) - 1})")
    old = grades[edit.index]
    grades[edit.index] = Grade(label=label, score=GRADE_SCORES[label],
                               reason=f"what-if: set to {label} by hand (recorded {old.label}: {old.reason})")
    step = _the_step(update, node)
    if edit.index < len(step.documents):
        record = step.documents[edit.index]
        record.grade, record.grade_score, record.grade_reason = label, GRADE_SCORES[label], grades[edit.index].reason
    counts = grade_counts(grades)
    step.output = {**step.output, **counts}
    step.decision = ", ".join(f"{n} {name}" for name, n in counts.items())
    if "next_action" in update:  # the node chose its next step from the grades: choose again by the variant's rule
        redecide = REDECIDE.get((variant, node))
        if redecide is None:
            raise RagError(f"step {node} of {variant} decides its next step from the grades, and re-deciding it "
                           "after an edit is not wired for this variant yet")
        action, reason = redecide(update, before, settings)
        update.update({"next_action": action, "action_reason": reason})
        step.output = {**step.output, "next_action": action}
        step.decision, step.reason = action, reason
    _mark(step, edit, old.label)
    return old.label


def _redecide_crag(update: dict[str, Any], before: dict[str, Any], settings: Settings) -> tuple[str, str]:
    from rag.variants.crag import decide_after_grade

    action, reason = decide_after_grade(update["grades"], int(before.get("attempt") or 0), settings.max_attempts)
    update["stop_reason"] = "attempts_guard" if action == "not_found" else ""
    return action, reason


def _redecide_self_rag(update: dict[str, Any], before: dict[str, Any], settings: Settings) -> tuple[str, str]:
    from rag.variants.judging import usable
    from rag.variants.self_rag import after_grading

    relevant, relevant_grades = usable(before.get("docs") or [], update["grades"])
    update.update({"relevant": relevant, "relevant_grades": relevant_grades})
    return after_grading(len(relevant), int(before.get("attempt") or 0), settings.max_attempts)


# (variant, node) -> the variant's own rule that turns edited grades into the next step (nodes that decide inside)
REDECIDE: dict[tuple[str, str], Callable[[dict[str, Any], dict[str, Any], Settings], tuple[str, str]]] = {
    ("crag", "grade_documents"): _redecide_crag,
    ("self_rag", "grade_documents"): _redecide_self_rag,
}


def _edit_quality_or_threshold(update: dict[str, Any], node: str, edit: Edit, before: dict[str, Any],
                               settings: Settings) -> tuple[Any, Settings]:
    """Set the score or the threshold and decide the next action again with the variant's own rule."""
    if "next_action" not in update or not update.get("hops"):
        raise RagError(f"step {node} records no quality decision: edit quality or threshold on evaluate_context")
    from rag.variants.agentic import decide_next  # the rule that step used

    try:
        number = float(edit.value)
    except ValueError:
        raise RagError(f"{edit.field} is a number between 0 and 1, not {edit.value!r}") from None
    if not 0.0 <= number <= 1.0:
        raise RagError(f"{edit.field} is a number between 0 and 1, not {number}")
    hop = update["hops"][-1]
    step = _the_step(update, node)
    if edit.field == "quality":
        was, hop.quality = round(float(hop.quality), 4), number
        update["quality"] = number
    else:
        was = settings.threshold
        settings = dataclasses.replace(settings, threshold=number)
    hops = [*(before.get("hops") or []), hop]
    action, target, reason, stop_reason = decide_next(hops, settings.threshold, settings.max_attempts)
    if hop.status == "repeated" and stop_reason != "repetition":
        hop.status, hop.note = "ok", ""
    update.update({"next_action": action, "next_strategy": target, "action_reason": reason,
                   "stop_reason": stop_reason, "attempts": [hop.to_attempt(settings.threshold)]})
    step.output = {**step.output, "quality": round(float(hop.quality), 4), "threshold": settings.threshold,
                   "next_action": action, "next_strategy": target, "stop_reason": stop_reason or None}
    step.inputs = {**step.inputs, "threshold": settings.threshold}
    step.decision, step.reason = action, reason
    _mark(step, edit, was)
    return was, settings


def _edit_route(update: dict[str, Any], node: str, edit: Edit) -> Any:
    from rag.variants.agentic import STRATEGIES

    target = edit.value.strip().lower()
    if "strategy" not in update:
        raise RagError(f"step {node} chose no route: edit route on classify or re_route")
    allowed = STRATEGIES if "route" in update else tuple(s for s in STRATEGIES if s != "direct")
    if target not in allowed:
        raise RagError(f"route is one of {', '.join(allowed)} here, not {edit.value!r}")
    step = _the_step(update, node)
    was = update["strategy"]
    update["strategy"] = target
    if "route" in update:
        update["route"] = target
    step.output = {**step.output, "strategy": target}
    step.decision = target
    _mark(step, edit, was)
    return was


def _edit_query(update: dict[str, Any], node: str, edit: Edit) -> Any:
    if "query" not in update:
        raise RagError(f"step {node} set no query: edit query on classify or rewrite_query")
    step = _the_step(update, node)
    was, update["query"] = update["query"], " ".join(edit.value.split())
    step.output = {**step.output, "query": update["query"]}
    if node != "classify":
        step.decision = update["query"]
    _mark(step, edit, was)
    return was


def apply_edit(update: dict[str, Any], node: str, edit: Edit, before: dict[str, Any], settings: Settings,
               variant: str = "agentic") -> tuple[Any, Settings]:
    """Edit ``update`` (what ``node`` returned) in place; returns (the recorded value, settings to continue with)."""
    if edit.field == "grade":
        return _edit_grade(update, node, edit, variant, before, settings), settings
    if edit.field in ("quality", "threshold"):
        return _edit_quality_or_threshold(update, node, edit, before, settings)
    if edit.field == "route":
        return _edit_route(update, node, edit), settings
    return _edit_query(update, node, edit), settings


# ---- the fork ----------------------------------------------------------------------------------------------------

def build_context(graph: Any, kb: KnowledgeBaseLike, engine: DecisionEngine, settings: Settings) -> Any:
    """The variant's runtime context, built from its graph's ``context_schema`` by field name (engine, tools,
    settings, known_entities, kb) — the same parts the variant's own ``run`` hands it."""
    schema = getattr(graph, "context_schema", None)
    if schema is None or not dataclasses.is_dataclass(schema):
        return None
    parts = {"engine": engine, "settings": settings, "kb": kb, "tools": None, "known_entities": kb.known_entities}
    values = {}
    for f in dataclasses.fields(schema):
        if f.name == "tools":
            values["tools"] = kb.tools()
        elif f.name in parts:
            values[f.name] = parts[f.name]
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise RagError(f"cannot rebuild the context of this variant: its {schema.__name__} needs {f.name!r}")
    return schema(**values)


def fork_run(store: RunStore, parent: Run | str, step: int, edit: Edit | str, *, kb: KnowledgeBaseLike,
             engine: DecisionEngine, settings: Settings, on_step: OnStep | None = None) -> Run:
    """Fork ``parent`` at ``step`` with ``edit`` applied, continue it, save it to ``store`` and return it.

    Raises ``RagError`` (plain words) for a run without checkpoints, a step out of range or an edit that does not
    fit the step. Failures while the fork continues are recorded in the fork, like any run's. The fork's steps up to
    the edit are copies of the parent's; its ``wall_ms`` counts the continuation only."""
    edit = Edit.parse(edit) if isinstance(edit, str) else edit
    if isinstance(parent, str):
        found = store.get(parent)
        if found is None:
            raise RagError(f"no run with id {parent!r} (list them: python -m rag runs list)")
        parent = found
    thread_id, head = parent.replay.get("thread_id"), parent.replay.get("checkpoint_id")
    if not thread_id or not head:
        raise RagError(f"run {parent.run_id} has no checkpoints to fork from (recorded before what-if replay, or by "
                       "a variant without a graph): ask the question again and fork the new run")
    if not 0 <= step < len(parent.steps):
        raise RagError(f"run {parent.run_id} has steps 0..{len(parent.steps) - 1}; there is no step {step}")
    node = parent.steps[step].node
    if parent.steps[step].status == "failed":
        raise RagError(f"step {step} ({node}) failed: there is no decision to edit")
    if parent.replay.get("parent_run_id") and step == parent.replay.get("step"):
        raise RagError(f"step {step} is where run {parent.run_id} was forked: fork its parent "
                       f"{parent.replay['parent_run_id']} at this step instead, or fork a later step")
    graph = registry.compiled_graph(parent.variant)
    if graph is None:
        raise RagError(f"variant {parent.variant!r} declares no graph: its runs cannot be forked")

    # the fork continues under the parent's own loop settings, not whatever the caller has now
    recorded = {k: parent.settings[k] for k in RUN_SETTINGS if parent.settings.get(k) is not None}
    if parent.settings and parent.settings.get("context_in_document") is None:
        recorded["context_in_document"] = 0  # recorded before the setting existed: its answer read no such chunks
    settings = dataclasses.replace(settings, **recorded)
    with open_checkpointer(settings.data_dir) as saver:
        bound = graph.copy(update={"checkpointer": saver})
        chain = lineage(bound, thread_id, head)
        if not chain:
            raise RagError(f"the checkpoints of run {parent.run_id} are not in {settings.data_dir} any more")
        before, result = checkpoint_before(chain, step, node)
        update = copy.deepcopy(result)
        was, continue_with = apply_edit(update, node, edit, before.values, settings, parent.variant)
        edited_step = _the_step(update, node)
        forked = bound.update_state(before.config, update, as_node=node)

    recorder = TraceRecorder(parent.question, parent.variant, engine, continue_with, on_step)
    fork = recorder.run
    fork.replay = {"thread_id": thread_id, "resume_from": _checkpoint_id(forked), "parent_run_id": parent.run_id,
                   "step": step, "node": node, "from_checkpoint_id": _checkpoint_id(before.config),
                   "edit": {"field": edit.field, "index": edit.index, "value": edit.value, "was": was,
                            "text": str(edit)}}
    for copied in [*parent.steps[:step], edited_step]:
        recorder.add(copy.deepcopy(copied))
    context = build_context(graph, kb, engine, continue_with)
    limit = step_limit(parent.variant, continue_with)  # the same bound as the variant's own run
    with run_deadline(continue_with.run_deadline_s):  # the same deadline as any run (RAG_RUN_DEADLINE)
        outcome = stream_graph(graph, None, context, recorder, limit)
    fork.replay.pop("resume_from", None)
    if outcome.hit_limit:
        recorder.fail(f"the graph hit its step limit ({limit} steps)")
    finish_from_state(fork, outcome.final)
    fork = recorder.finish()
    store.save(fork)
    return fork


def step_limit(variant: str, settings: Settings) -> int:
    """The variant's own recursion_limit (its ``step_limit``); agentic's rule for a variant that declares none."""
    declared = getattr(registry.variant_class(variant), "step_limit", None)
    return declared(settings) if declared is not None else recursion_limit(settings.max_attempts)


PARTIAL_NODES = ("partial_answer", "not_found")  # the variants' "say what was found" endings
PARTIAL_STOPS = ("attempts_guard", "recursion_limit", "comparison_partial")


def finish_from_state(run: Run, final: dict[str, Any]) -> None:
    """Copy route, attempts, stop reason and answer from the graph's last state into the run, the way the variants'
    own ``run`` methods do (a partial answer: one of their partial endings or bound stops)."""
    run.route = final.get("route") or run.route
    run.attempts = list(final.get("attempts") or [])
    if run.error is None:
        run.stop_reason = final.get("stop_reason") or run.stop_reason
        answer = final.get("answer")
        if answer is not None:
            apply_answer(run, answer)
        run.partial = run.path[-1] in PARTIAL_NODES if run.path else False
        run.partial = run.partial or run.stop_reason in PARTIAL_STOPS


def diverging_step(parent: Run, fork: Run) -> int:
    """The step where the fork departs from its parent: the edited step."""
    return int(fork.replay.get("step", 0))


def first_different_node(parent: Run, fork: Run) -> int | None:
    """Index of the first step whose node differs between the two paths (None when one path is a prefix)."""
    for i, (a, b) in enumerate(zip(parent.path, fork.path)):
        if a != b:
            return i
    return None if len(parent.path) == len(fork.path) else min(len(parent.path), len(fork.path))


def fork_summary(fork: Run) -> dict[str, Any]:
    """The ``--json`` view of a fork: the run's CLI JSON plus its lineage."""
    data = fork.to_cli_json()
    data["fork"] = {k: fork.replay.get(k) for k in ("parent_run_id", "step", "node", "edit")}
    return data
