"""The generator's tokens, streamed to a UI or the CLI while the steps still arrive live.

    from rag.streaming import stream_tokens
    with stream_tokens(lambda piece: print(piece, end="", flush=True)):
        run = run_question(...)          # on_step still gets every step as it lands

While a sink is set, the graph loops (``rag.variants.graphrun.stream_graph`` and the agentic run) add LangGraph's
``messages`` stream mode: a chat model called inside a node then streams (langchain-openai sends ``stream: true``),
and the pieces of replies made in an answer node (``rag.variants.registry.answer_nodes()``) reach the sink. The
replies are structured (JSON): ``JsonTextStream`` reads the JSON as it grows and passes on only the text of its
string values (the conclusion, the evidence, …), never keys or brackets. The run's recorded answer is still built
from the whole reply; the streamed text is for display while it is being written. The offline engine makes no
model call, so nothing streams with it.
"""
from __future__ import annotations

import contextlib
import contextvars
from typing import Any, Callable, Iterator

TokenSink = Callable[[str], None]
ANSWER_NODES = ("generate", "direct_generate", "partial_answer")
_SINK: contextvars.ContextVar["_Forwarder | None"] = contextvars.ContextVar("rag_token_sink", default=None)


class JsonTextStream:
    """Feed pieces of a JSON text; get back the new characters of its string values (keys and syntax dropped),
    values separated by a newline. ``\\uXXXX`` escapes are decoded once complete."""

    def __init__(self) -> None:
        self.stack: list[str] = []
        self.expect_key = False
        self.in_string = False
        self.is_value = False
        self.escape = ""  # "" | "\\" | "\\uXX…" while an escape is incomplete
        self.emitted = False

    def feed(self, text: str) -> str:
        out: list[str] = []
        for ch in text:
            if self.in_string:
                if self.escape:
                    self.escape += ch
                    if self.escape.startswith("\\u"):
                        if len(self.escape) < 6:
                            continue
                        try:
                            decoded = chr(int(self.escape[2:], 16))
                        except ValueError:
                            decoded = ""
                    else:
                        decoded = {"n": "\n", "t": "\t", "r": "", "b": "", "f": ""}.get(ch, ch)
                    self.escape = ""
                    if self.is_value:
                        out.append(decoded)
                elif ch == "\\":
                    self.escape = "\\"
                elif ch == '"':
                    self.in_string = False
                elif self.is_value:
                    out.append(ch)
                continue
            if ch == "{":
                self.stack.append("{")
                self.expect_key = True
            elif ch == "[":
                self.stack.append("[")
            elif ch in "}]":
                if self.stack:
                    self.stack.pop()
            elif ch == ":":
                self.expect_key = False
            elif ch == ",":
                self.expect_key = bool(self.stack) and self.stack[-1] == "{"
            elif ch == '"':
                self.in_string = True
                self.is_value = not (self.stack and self.stack[-1] == "{" and self.expect_key)
                if self.is_value and self.emitted:
                    out.append("\n")
                self.emitted = self.emitted or self.is_value
        return "".join(out)


class _Forwarder:
    """Turns LangGraph ``messages`` events into display text for one sink (a fresh JSON reader per model call)."""

    def __init__(self, sink: TokenSink) -> None:
        self.sink = sink
        self.call_id: Any = None
        self.reader = JsonTextStream()
        self.nodes: tuple[str, ...] | None = None

    def answer_nodes(self) -> tuple[str, ...]:
        if self.nodes is None:
            try:
                from rag.variants.registry import answer_nodes

                self.nodes = tuple(dict.fromkeys([*ANSWER_NODES, *answer_nodes()]))
            except ImportError:  # the registry is optional: the agentic answer nodes
                self.nodes = ANSWER_NODES
        return self.nodes

    def __call__(self, event: Any) -> None:
        try:
            message, metadata = event
        except (TypeError, ValueError):
            return
        if (metadata or {}).get("langgraph_node") not in self.answer_nodes():
            return
        text = getattr(message, "content", "")
        if isinstance(text, list):
            text = "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in text)
        if not text:  # function calling: the JSON comes as tool-call argument pieces
            text = "".join(str(c.get("args") or "") for c in getattr(message, "tool_call_chunks", None) or [])
        if not text:
            return
        call_id = getattr(message, "id", None)
        if call_id != self.call_id:
            if self.call_id is not None:
                self.sink("\n\n")
            self.call_id, self.reader = call_id, JsonTextStream()
        shown = self.reader.feed(text)
        if shown:
            self.sink(shown)


@contextlib.contextmanager
def stream_tokens(sink: TokenSink | None) -> Iterator[None]:
    """Send the answer's text to ``sink`` while runs inside this block write it (None: no streaming)."""
    token = _SINK.set(_Forwarder(sink) if sink is not None else None)
    try:
        yield
    finally:
        _SINK.reset(token)


def stream_modes(modes: list[str]) -> list[str]:
    """The graph's stream modes: ``modes`` plus ``messages`` while a sink is set."""
    return [*modes, "messages"] if _SINK.get() is not None else list(modes)


def forward(event: Any) -> None:
    """Hand one ``messages`` event of the graph stream to the sink (text of answer nodes only)."""
    forwarder = _SINK.get()
    if forwarder is not None:
        forwarder(event)


__all__ = ["JsonTextStream", "TokenSink", "forward", "stream_modes", "stream_tokens"]
