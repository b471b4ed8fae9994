"""Stream a compiled variant graph into a ``TraceRecorder``: one loop for every LangGraph variant.

Each node update carries its ``steps`` (appended to the run as they land, so ``on_step`` sees them live). A
prebuilt ``ToolNode`` cannot add to ``steps``; its tool puts the finished ``Step`` into the ``ToolMessage``
artifact (``{"step": Step, ...}``) and it is recorded from there. A failed node (``NodeFailed``) is recorded and
ends the run with a message; hitting ``recursion_limit`` is reported to the caller (``GraphOutcome.hit_limit``),
who records it as a step and ends with a polite answer.
"""
from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

from langgraph.errors import GraphRecursionError

from rag import streaming
from rag.trace import Step
from rag.variants.base import NodeFailed, TraceRecorder, checkpointed, error_text


@dataclass
class GraphOutcome:
    final: dict[str, Any] = field(default_factory=dict)  # the last full state seen
    hit_limit: bool = False
    failed: bool = False


def steps_in(update: dict[str, Any] | None) -> list[Step]:
    """Steps of one node update: its ``steps`` list, or the steps carried by ToolMessage artifacts."""
    update = update or {}
    steps = list(update.get("steps") or [])
    for message in update.get("messages") or []:
        artifact = getattr(message, "artifact", None)
        if isinstance(artifact, dict) and isinstance(artifact.get("step"), Step):
            steps.append(artifact["step"])
    return steps


def stream_graph(graph: Any, initial: dict[str, Any], context: Any, recorder: TraceRecorder,
                 recursion_limit: int, graph_name: str = "the graph") -> GraphOutcome:
    """Run ``graph`` from ``initial`` with ``context``; record every step on ``recorder``. ``graph_name`` names the
    graph in the message of a fault outside any node."""
    outcome = GraphOutcome(final=dict(initial or {}))  # None: resume a fork from its checkpoint (rag.replay)
    checkpoints = ExitStack()  # every run is checkpointed, thread id = run id (what-if replay)
    graph, config = checkpoints.enter_context(checkpointed(graph, recorder, {"recursion_limit": recursion_limit}))
    stream = graph.stream(initial, config=config, context=context,
                          stream_mode=streaming.stream_modes(["updates", "values"]))
    try:
        while True:
            try:
                mode, chunk = next(stream)
            except StopIteration:
                break
            except NodeFailed as failed:
                recorder.add(failed.step)
                recorder.fail(f"step '{failed.step.node}' failed: {failed.step.error}")
                outcome.failed = True
                break
            except GraphRecursionError:
                outcome.hit_limit = True
                break
            except Exception as exc:  # a fault outside any node (graph wiring): still end with a message
                recorder.fail(f"{graph_name} failed: {error_text(exc)}")
                outcome.failed = True
                break
            if mode == "messages":  # generator tokens, only while rag.streaming has a sink
                streaming.forward(chunk)
                continue
            if mode == "values":
                outcome.final = chunk
                continue
            for update in chunk.values():  # on_step runs here, outside the graph: its exceptions propagate
                for step in steps_in(update):
                    recorder.add(step)
    finally:  # also when on_step raised: release the graph's stream
        stream.close()
        checkpoints.close()
    return outcome
