"""A small OpenAI-compatible HTTP server for tests (and the benchmark), on 127.0.0.1 and a free port.

    with OpenAIStub(replies=[{"strategy": "graph", "reason": "two entities"}, "plain text"]) as stub:
        settings = Settings.from_env(openai_base_url=stub.base_url, openai_api_key="sk-test")
        ...
        stub.requests  # every request received: path, JSON body, headers

Endpoints: ``POST /v1/chat/completions``, ``POST /v1/embeddings`` (deterministic hashed bag-of-words vectors),
``GET /v1/models``. Replies to chat completions come from ``replies`` (a queue, consumed in order), then from
``respond(request_body)`` if given, else a default that says the script ran out (HTTP 500).

A reply may be
- a ``dict`` / ``list``: a structured answer; sent as a tool call when the request offered tools, otherwise as
  JSON text in ``message.content`` (``response_format`` json_schema / json_mode);
- a ``str``: sent verbatim as ``message.content`` (use it for plain text and for garbage);
- ``Reply(...)``: full control — HTTP status, raw body, forced tool call, usage, delay;
- a callable ``f(body) -> reply``: decided from the request (e.g. by ``purpose_of(body)``).
Every reply carries ``usage`` (prompt / completion tokens counted as whitespace-separated words unless given).

Faults, for deadline tests: ``OpenAIStub(mode="hang")`` reads each request and never answers (until ``stop()``);
``mode="drop"`` closes the connection without a reply; ``latency_s`` / ``Reply(delay_s=...)`` answer late;
``refused_base_url()`` is a base URL on a closed port (connection refused).
"""
from __future__ import annotations

import hashlib
import json
import math
import re
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterable


@dataclass
class Reply:
    """One scripted chat-completion reply."""

    content: Any = None  # dict/list -> JSON; str -> verbatim
    status: int = 200
    body: str | None = None  # raw response body (overrides everything else)
    as_tool_call: bool | None = None  # None: tool call iff the request offered tools
    tool_name: str | None = None
    usage: dict[str, int] | None = None
    delay_s: float = 0.0


@dataclass
class Recorded:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]  # lower-case names
    at: float = field(default_factory=time.time)


def _words(text: str) -> int:
    return len(re.findall(r"\S+", text or ""))


def purpose_of(body: dict[str, Any]) -> str:
    """Best guess of what a chat request is for, from its schema / tool name or system prompt (for scripted stubs)."""
    names: list[str] = []
    fmt = body.get("response_format") or {}
    if isinstance(fmt, dict) and isinstance(fmt.get("json_schema"), dict):
        names.append(str(fmt["json_schema"].get("name", "")))
    for tool in body.get("tools") or []:
        names.append(str((tool.get("function") or {}).get("name", "")))
    joined = " ".join(names).lower()
    if "gradebatch" in joined:  # all documents graded in one call (issue 11)
        return "grade_batch"
    for key in ("classify", "grade", "quality", "rewrite", "answer", "partial", "direct", "extract"):
        if key in joined:
            return key
    system = " ".join(m.get("content", "") for m in body.get("messages", []) if m.get("role") == "system").lower()
    for key, cue in (("classify", "retrieval strategy"), ("grade_batch", "for each numbered retrieved document"),
                     ("grade", "grader"), ("quality", "covers the question"),
                     ("rewrite", "rewrite the question"), ("extract", "extract entities")):
        if cue in system:
            return key
    return "other"


_NUMBERED_DOC = re.compile(r'<document [^>]*\bn="(\d+)"[^>]*>\n?(.*?)\n?</document>', re.S)


def numbered_documents(body: dict[str, Any]) -> list[tuple[int, str]]:
    """(number, text) of every ``<document n="…">`` in a request's last user message (a batched grading request)."""
    users = [str(m.get("content") or "") for m in body.get("messages", []) if m.get("role") == "user"]
    return [(int(n), text) for n, text in _NUMBERED_DOC.findall(users[-1] if users else "")]


def batch_grades(body: dict[str, Any], judge: Callable[[str], tuple[str, float]], kind: str = "good",
                 drop: Iterable[int] = ()) -> Any:
    """A scripted reply to a batched grading request, from ``judge(document text) -> (label, score)``:
    ``good`` — one verdict per document; ``partial`` — the documents numbered in ``drop`` (default: the last one)
    left out; ``malformed`` — not JSON at all; ``bad_item`` — the ``drop`` documents get an unknown label."""
    docs = numbered_documents(body)
    if kind == "malformed":
        return "Here are my grades: the first one looks fine, the others less so."
    dropped = set(drop) or ({docs[-1][0]} if docs else set())
    grades = []
    for n, text in docs:
        label, score = judge(text)
        if kind == "partial" and n in dropped:
            continue
        if kind == "bad_item" and n in dropped:
            label = "relevant"
        grades.append({"id": str(n), "label": label, "score": score, "reason": f"scripted {label}"})
    return {"grades": grades}


def hashed_embedding(text: str, dim: int = 64) -> list[float]:
    """Deterministic unit vector: hashed bag of lowercase words (and CJK bigrams), so similar texts are close."""
    vec = [0.0] * dim
    tokens = re.findall(r"[a-z0-9]+", text.lower())
    for run in re.findall(r"[\uac00-\ud7a3\u4e00-\u9fff]+", text):
        tokens += [run[i : i + 2] for i in range(max(1, len(run) - 1))]
    for tok in tokens or [""]:
        h = hashlib.sha256(tok.encode()).digest()
        vec[int.from_bytes(h[:4], "big") % dim] += 1.0 if h[4] % 2 else -1.0
    norm = math.sqrt(sum(v * v for v in vec))
    if norm == 0.0:  # every token cancelled out: still a unit vector
        vec[0], norm = 1.0, 1.0
    return [v / norm for v in vec]


class OpenAIStub:
    """The server; a context manager (``with OpenAIStub(...) as stub``) or ``start()`` / ``stop()``."""

    def __init__(self, replies: Iterable[Any] = (), respond: Callable[[dict[str, Any]], Any] | None = None,
                 latency_s: float = 0.0, embedding_dim: int = 64, model: str = "stub-model",
                 mode: str = "normal") -> None:
        if mode not in ("normal", "hang", "drop"):
            raise ValueError(f"mode must be normal, hang or drop, got {mode!r}")
        self.mode = mode
        self._stopping = threading.Event()
        self.replies: deque[Any] = deque(replies)
        self.respond = respond
        self.latency_s = latency_s
        self.stream_piece_chars = 8  # a streamed reply (``stream: true``) comes in pieces of this many characters
        self.stream_delay_s = 0.0  # pause after each streamed piece
        self.embedding_dim = embedding_dim
        self.model = model
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle ----------------------------------------------------------------------------------
    def start(self) -> "OpenAIStub":
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body go out as two writes: with Nagle on, a kept-alive connection waits for the client's
            # delayed ACK (~40 ms on Linux) before the body, so later calls of a run looked slower than the first
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def _send(self, status: int, payload: str) -> None:
                data = payload.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, json.dumps({"object": "list", "data": [
                        {"id": stub.model, "object": "model", "owned_by": "stub"}]}))
                else:
                    self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    self._send(400, json.dumps({"error": {"message": "invalid JSON body"}}))
                    return
                with stub._lock:
                    stub.requests.append(Recorded(self.path, body, {k.lower(): v for k, v in self.headers.items()}))
                if stub.mode == "hang":  # a server that took the request and went silent
                    stub._stopping.wait()
                    self.close_connection = True
                    return
                if stub.mode == "drop":  # a server that dies mid-request: no status line at all
                    self.close_connection = True
                    return
                if stub.latency_s:
                    time.sleep(stub.latency_s)
                if self.path.rstrip("/").endswith("/chat/completions"):
                    status, payload = stub._chat(body)
                elif self.path.rstrip("/").endswith("/embeddings"):
                    status, payload = stub._embeddings(body)
                else:
                    status, payload = 404, json.dumps({"error": {"message": f"no route {self.path}"}})
                if body.get("stream") and status == 200 and self.path.rstrip("/").endswith("/chat/completions"):
                    self._send_events(stub._sse_events(payload, body))
                    return
                self._send(status, payload)

            def _send_events(self, events: list[str]) -> None:
                """A streamed reply (``stream: true``): server-sent events, the connection closed at the end."""
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                for event in events:
                    self.wfile.write(f"data: {event}\n\n".encode())
                    self.wfile.flush()
                    if stub.stream_delay_s:
                        time.sleep(stub.stream_delay_s)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="openai-stub", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # release hanging handlers
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "OpenAIStub":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "stub not started"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # ---- scripting ----------------------------------------------------------------------------------
    def add(self, *replies: Any) -> None:
        """Queue more replies."""
        self.replies.extend(replies)

    @property
    def chat_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.path.rstrip("/").endswith("/chat/completions")]

    def _next_reply(self, body: dict[str, Any]) -> Any:
        with self._lock:
            reply = self.replies.popleft() if self.replies else None
        if reply is None and self.respond is not None:
            reply = self.respond
        if reply is None:
            return Reply(status=500, body=json.dumps({"error": {"message": "openai stub: no scripted reply left",
                                                                "type": "server_error"}}))
        while callable(reply) and not isinstance(reply, Reply):
            reply = reply(body)
        return reply

    def _chat(self, body: dict[str, Any]) -> tuple[int, str]:
        reply = self._next_reply(body)
        if not isinstance(reply, Reply):
            reply = Reply(content=reply)
        if reply.delay_s:  # stop() cuts it short: Reply(delay_s=3600) is a call that hangs
            self._stopping.wait(reply.delay_s)
        if reply.body is not None:
            return reply.status, reply.body
        if reply.status != 200:
            return reply.status, json.dumps({"error": {"message": f"stub error {reply.status}", "type": "server_error"}})

        tools = body.get("tools") or []
        as_tool = reply.as_tool_call if reply.as_tool_call is not None else bool(tools) and not isinstance(
            reply.content, str)
        text = reply.content if isinstance(reply.content, str) else json.dumps(reply.content, ensure_ascii=False)
        message: dict[str, Any] = {"role": "assistant", "content": None if as_tool else text}
        finish = "stop"
        if as_tool:
            name = reply.tool_name or ((tools[0].get("function") or {}).get("name") if tools else "tool")
            message["tool_calls"] = [{"id": f"call_{len(self.requests)}", "type": "function",
                                      "function": {"name": name, "arguments": text}}]
            finish = "tool_calls"
        prompt_text = " ".join(str(m.get("content") or "") for m in body.get("messages", []))
        usage = reply.usage or {"prompt_tokens": _words(prompt_text), "completion_tokens": max(1, _words(text))}
        usage = {**usage, "total_tokens": usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)}
        return 200, json.dumps({
            "id": f"chatcmpl-stub-{len(self.requests)}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", self.model),
            "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
            "usage": usage,
        }, ensure_ascii=False)

    def _sse_events(self, payload: str, body: dict[str, Any]) -> list[str]:
        """The chat completion ``payload`` as streaming chunks: the text (or tool-call arguments) in pieces of
        ``stream_piece_chars``, then the finish reason, then usage when ``stream_options.include_usage``, then
        ``[DONE]``."""
        done = json.loads(payload)
        choice, n = done["choices"][0], self.stream_piece_chars
        base = {"id": done["id"], "object": "chat.completion.chunk", "created": done["created"], "model": done["model"]}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
            return json.dumps({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish,
                                                    "logprobs": None}]}, ensure_ascii=False)

        message = choice["message"]
        events = [chunk({"role": "assistant", "content": ""})]
        if message.get("tool_calls"):
            call = message["tool_calls"][0]
            args = call["function"]["arguments"]
            events.append(chunk({"tool_calls": [{"index": 0, "id": call["id"], "type": "function",
                                                 "function": {"name": call["function"]["name"], "arguments": ""}}]}))
            events += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": args[i:i + n]}}]})
                       for i in range(0, len(args), n)]
        else:
            text = message.get("content") or ""
            events += [chunk({"content": text[i:i + n]}) for i in range(0, len(text), n)]
        events.append(chunk({}, choice["finish_reason"]))
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append(json.dumps({**base, "choices": [], "usage": done["usage"]}))
        return [*events, "[DONE]"]

    def _embeddings(self, body: dict[str, Any]) -> tuple[int, str]:
        inputs = body.get("input", [])
        if isinstance(inputs, str):
            inputs = [inputs]
        data = [{"object": "embedding", "index": i, "embedding": hashed_embedding(str(t), self.embedding_dim)}
                for i, t in enumerate(inputs)]
        tokens = sum(_words(str(t)) for t in inputs)
        return 200, json.dumps({"object": "list", "data": data, "model": body.get("model", self.model),
                                "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})


def refused_base_url() -> str:
    """An OpenAI base URL on a 127.0.0.1 port nobody listens on: every request gets 'connection refused'."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


__all__ = ["OpenAIStub", "Recorded", "Reply", "hashed_embedding", "purpose_of", "refused_base_url"]
