"""The one list of agent variants. Everything that needs "which variants are there" reads it here.

A variant is a class (see ``rag.variants.base.Variant``) that declares, besides ``name``, ``label``,
``description`` and ``run(...)``:

- ``build_graph()`` — its compiled LangGraph graph; the UI draws the diagram from ``graph.get_graph()`` (nodes
  and edges), never from a hand-kept edge list;
- ``answer_nodes`` — the node(s) whose step produces the answer (metrics read the generator's documents there);
- ``loop_nodes`` — nodes that lead back into a retry loop (drawn orange);
- ``notes`` — per-node teaching notes ``{node: (korean, english)}``; ``subtitles`` — ``{node: "한국어 · english"}``;
- ``min_calls`` — minimum model calls counted from its code path as a function of N documents (text, seed 001);
- ``prevents`` / ``leaves_open`` — the F1–F7 failures (``rag.failures``) its checks stop / do not stop, with why.

``register_variant(cls)`` adds one (built-in variants register through it in ``rag/variants/__init__.py``, a
test or an add-on the same way). CLI choices, the Ask and Evaluate pages, diagrams, notes and metrics call the
functions below.
"""
from __future__ import annotations

import functools
from typing import Any

from rag.types import RagError

VARIANTS: dict[str, type] = {}

START, END = "__start__", "__end__"


def register_variant(cls: type) -> type:
    """Add (or replace) a variant class under ``cls.name``; returns the class, so it works as a decorator."""
    name = getattr(cls, "name", None)
    if not name or not isinstance(name, str):
        raise ValueError(f"a variant needs a string 'name', got {name!r} on {cls!r}")
    VARIANTS[name] = cls
    compiled_graph.cache_clear()
    return cls


def unregister_variant(name: str) -> None:
    VARIANTS.pop(name, None)
    compiled_graph.cache_clear()


def variant_names() -> list[str]:
    """Registered names in registration order."""
    return list(VARIANTS)


def variant_class(name: str) -> type:
    try:
        return VARIANTS[name]
    except KeyError:
        raise RagError(f"unknown variant {name!r}: choose one of {', '.join(VARIANTS)}") from None


def info(name: str, attribute: str, default: Any = None) -> Any:
    cls = VARIANTS.get(name)
    return getattr(cls, attribute, default) if cls is not None else default


@functools.lru_cache(maxsize=64)
def compiled_graph(name: str) -> Any:
    """The variant's compiled LangGraph graph (built once), or None when it declares none."""
    cls = VARIANTS.get(name)
    build = getattr(cls, "build_graph", None) if cls is not None else None
    return build() if build is not None else None


def graph_structure(name: str) -> tuple[list[str], list[tuple[str, str]]]:
    """(nodes, edges) of the variant's compiled graph, in the order LangGraph lists them; ([], []) without one."""
    graph = compiled_graph(name)
    if graph is None:
        return [], []
    drawable = graph.get_graph()
    nodes = [str(n) for n in drawable.nodes]
    edges: list[tuple[str, str]] = []
    for e in drawable.edges:
        pair = (str(e.source), str(e.target))
        if pair not in edges:
            edges.append(pair)
    return nodes, edges


def graph_edges(name: str) -> list[tuple[str, str]]:
    return graph_structure(name)[1]


def graph_nodes(name: str) -> list[str]:
    """The variant's own nodes (no __start__ / __end__)."""
    return [n for n in graph_structure(name)[0] if n not in (START, END)]


def node_note(name: str, node: str) -> tuple[str, str] | None:
    """(korean, english) teaching note the variant declares for ``node``, or None."""
    notes = info(name, "notes", None) or {}
    return notes.get(node)


def node_subtitle(name: str, node: str) -> str | None:
    subtitles = info(name, "subtitles", None) or {}
    return subtitles.get(node)


def loop_nodes(name: str) -> frozenset[str]:
    return frozenset(info(name, "loop_nodes", ()) or ())


def answer_nodes(name: str | None = None) -> tuple[str, ...]:
    """The answer-producing nodes of one variant, or of every registered variant (deduplicated) when no name."""
    names = [name] if name else list(VARIANTS)
    out: list[str] = []
    for n in names:
        for node in info(n, "answer_nodes", ()) or ():
            if node not in out:
                out.append(node)
    return tuple(out)


def family_row(name: str) -> dict[str, Any]:
    """The seed-001-style declaration of one variant: what it checks, its minimum model calls, what it leaves open."""
    cls = variant_class(name)
    return {"variant": name, "label": getattr(cls, "label", name), "description": getattr(cls, "description", ""),
            "min_calls": getattr(cls, "min_calls", "?"),
            "prevents": dict(getattr(cls, "prevents", {}) or {}),
            "leaves_open": dict(getattr(cls, "leaves_open", {}) or {})}
