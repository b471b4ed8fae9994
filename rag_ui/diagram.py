"""The agent graph as graphviz DOT, with the path one run took highlighted and numbered.

Input: every edge of the variant's compiled LangGraph graph (``rag.variants.registry.graph_edges``) and a recorded
``Run``; nothing here recomputes a decision. Node subtitles and loop nodes come from the variant's registry entry. Edge numbers follow ``run.edges`` (edge n leads into step n), so a node labelled
``#3 #7`` was executed as step 3 and step 7. Re-routes and rewrites are drawn in orange, failed steps in red,
and, with ``upto``, only the first steps are lit and the step being inspected is drawn in gold.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Sequence

from rag.trace import Run

START, END = "__start__", "__end__"

RANKS = (("retrieve_vector", "retrieve_graph", "retrieve_web"), ("re_route", "rewrite_query"),
         ("generate", "partial_answer"))

COLOR_IDLE = "#9aa0a6"
COLOR_PATH = "#1a73e8"
COLOR_LOOP = "#e8710a"
COLOR_FAIL = "#d93025"
FILL_VISITED = "#d2e3fc"
FILL_LOOP = "#fde2c8"
FILL_FAIL = "#fad2cf"
FILL_CURRENT = "#fdd663"


def graph_edges(variant: str = "agentic") -> list[tuple[str, str]]:
    """All edges of a variant's compiled graph as (from, to) pairs, or none when the variant is not registered or
    declares no graph (then only the recorded path is drawn)."""
    from rag.variants import registry

    return normalize_edges(registry.graph_edges(variant))


def _subtitle(variant: str, node: str) -> str | None:
    from rag.variants import registry

    return registry.node_subtitle(variant, node)


def _loop_nodes(variant: str) -> frozenset[str]:
    from rag.variants import registry

    return registry.loop_nodes(variant)


def normalize_edges(edges: Iterable[Sequence[str]]) -> list[tuple[str, str]]:
    """Accept (from, to) or (from, to, label) items; drop duplicates, keep order."""
    out: list[tuple[str, str]] = []
    for edge in edges:
        pair = (str(edge[0]), str(edge[1]))
        if pair not in out:
            out.append(pair)
    return out


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _attrs(**attrs: object) -> str:
    return "[" + ", ".join(f"{k}={_quote(str(v))}" for k, v in attrs.items() if v is not None) + "]"


def _steps_shown(run: Run | None, upto: int | None) -> int:
    if run is None:
        return 0
    return len(run.steps) if upto is None else max(0, min(upto + 1, len(run.steps)))


def taken_edges(run: Run | None, upto: int | None = None) -> list[tuple[int, str, str]]:
    """(number, from, to) of each edge taken, 1-based, limited to the first ``upto + 1`` steps."""
    if run is None:
        return []
    shown = _steps_shown(run, upto)
    complete = upto is None or shown >= len(run.steps)
    out: list[tuple[int, str, str]] = []
    arrivals = 0
    for number, (src, dst) in enumerate(run.edges, start=1):
        if dst != END:
            arrivals += 1
            if arrivals > shown:
                break
        elif not complete:
            break
        out.append((number, src, dst))
    return out


def agent_dot(run: Run | None = None, upto: int | None = None,
              edges: Iterable[Sequence[str]] | None = None, title: str | None = None,
              variant: str | None = None) -> str:
    """DOT source of the graph; with a run, its path is highlighted and numbered (up to step ``upto``, 0-based)."""
    variant = run.variant if run else (variant or "agentic")
    all_edges = normalize_edges(edges) if edges is not None else graph_edges(variant)
    loop_nodes = _loop_nodes(variant)
    nodes: list[str] = []
    for src, dst in all_edges:
        for name in (src, dst):
            if name not in nodes:
                nodes.append(name)
    taken = taken_edges(run, upto)
    if not all_edges and run is not None:  # no static graph for this variant: the recorded path is the graph
        all_edges = normalize_edges(run.edges)
    for _, src, dst in taken:  # a recorded edge the static graph lacks is still drawn, never hidden
        for name in (src, dst):
            if name not in nodes:
                nodes.append(name)

    shown = _steps_shown(run, upto)
    visits: dict[str, list[int]] = defaultdict(list)
    failed: set[str] = set()
    current = None
    if run is not None:
        for step in run.steps[:shown]:
            visits[step.node].append(step.index + 1)
            if step.status == "failed":
                failed.add(step.node)
        if upto is not None and shown:
            current = run.steps[shown - 1].node
    if taken:
        visits[START] = [0]
        if taken[-1][2] == END:
            visits[END] = [0]

    lines = ["digraph agent {",
             '  graph [rankdir=TB, fontname="Helvetica", fontsize=11, nodesep=0.35, ranksep=0.4, bgcolor="transparent"'
             + (f", label={_quote(title)}, labelloc=t" if title else "") + "];",
             '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11, '
             f'color="{COLOR_IDLE}", fontcolor="#5f6368", fillcolor="white"];',
             f'  edge [color="{COLOR_IDLE}", fontname="Helvetica", fontsize=10, arrowsize=0.7];']
    for name in nodes:
        if name in (START, END):
            lit = name in visits
            lines.append(f"  {_quote(name)} " + _attrs(
                label="START" if name == START else "END", shape="oval", style="filled",
                fillcolor=FILL_VISITED if lit else "white", color=COLOR_PATH if lit else COLOR_IDLE,
                fontcolor="black" if lit else "#5f6368", penwidth=2 if lit else 1))
            continue
        label = name
        subtitle = _subtitle(variant, name)
        if subtitle:
            label += "\n" + subtitle
        numbers = visits.get(name)
        attrs: dict[str, object] = {"label": label}
        if numbers:
            attrs["label"] = label + "\n" + " ".join(f"#{n}" for n in numbers)
            loop = name in loop_nodes
            attrs.update(fillcolor=FILL_FAIL if name in failed else FILL_LOOP if loop else FILL_VISITED,
                         color=COLOR_FAIL if name in failed else COLOR_LOOP if loop else COLOR_PATH,
                         fontcolor="black", penwidth=2)
        if name == current:
            attrs.update(fillcolor=FILL_CURRENT, penwidth=3.5)
        lines.append(f"  {_quote(name)} " + _attrs(**attrs))

    for group in RANKS:  # keep the picture in reading order: retrievers side by side, endings side by side
        members = [n for n in group if n in nodes]
        if len(members) > 1:
            lines.append("  { rank=same; " + " ".join(_quote(n) for n in members) + " }")

    numbers_by_edge: dict[tuple[str, str], list[int]] = defaultdict(list)
    for number, src, dst in taken:
        numbers_by_edge[(src, dst)].append(number)
    drawn = list(all_edges) + [e for e in numbers_by_edge if e not in all_edges]
    for src, dst in drawn:
        numbers = numbers_by_edge.get((src, dst))
        back = src in loop_nodes  # re_route / rewrite_query lead back up to a retriever
        if not numbers:
            lines.append(f"  {_quote(src)} -> {_quote(dst)} " + _attrs(
                style="dashed", constraint="false" if back else None))
            continue
        loop = src in loop_nodes or dst in loop_nodes
        unknown = (src, dst) not in all_edges
        color = COLOR_FAIL if unknown else COLOR_LOOP if loop else COLOR_PATH
        lines.append(f"  {_quote(src)} -> {_quote(dst)} " + _attrs(
            label=" " + ", ".join(str(n) for n in numbers) + " ", color=color, fontcolor=color,
            penwidth=3, style="dashed" if unknown else "solid", constraint="false" if back else None))
    lines.append("}")
    return "\n".join(lines)


def count_nodes(dot: str) -> int:
    """How many nodes a DOT source written by this module or ``graphview`` declares (one line each)."""
    return sum(1 for line in dot.splitlines() if " [label=" in line and "->" not in line)


def path_text(run: Run) -> str:
    """The path as one readable line: ``1 classify → 2 retrieve_vector → …``."""
    return " → ".join(f"{s.index + 1} {s.node}" + (" ✗" if s.status == "failed" else "") for s in run.steps)
