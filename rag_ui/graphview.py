"""An entity's neighbourhood in the knowledge graph as graphviz DOT."""
from __future__ import annotations

from rag.graphstore.base import entity_key
from rag.types import Entity, Relation

TYPE_COLORS = {"person": "#fce8e6", "org": "#e6f4ea", "organization": "#e6f4ea", "model": "#e8f0fe",
               "product": "#fef7e0", "place": "#f3e8fd"}


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def neighbourhood_dot(center: str, entities: list[Entity], relations: list[Relation], max_label: int = 28) -> str:
    """Entities as boxes coloured by type (the centre one bold), relations as labelled arrows."""
    names = {entity_key(e.name): e for e in entities}
    for r in relations:  # an entity only named in a relation still gets a node
        for name in (r.source, r.target):
            names.setdefault(entity_key(name), Entity(name=name))
    center_key = entity_key(center)
    lines = ["digraph neighbourhood {",
             '  graph [rankdir=LR, bgcolor="transparent", fontname="Helvetica", overlap=false];',
             '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11, color="#9aa0a6"];',
             '  edge [fontname="Helvetica", fontsize=9, color="#5f6368", fontcolor="#3c4043", arrowsize=0.7];']
    for key, e in names.items():
        label = e.name if len(e.name) <= max_label else e.name[: max_label - 1] + "…"
        attrs = [f"label={_q(label + chr(10) + '(' + e.type + ')')}",
                 f'fillcolor="{TYPE_COLORS.get(e.type, "#f1f3f4")}"']
        if key == center_key:
            attrs += ['penwidth=3', 'color="#1a73e8"', 'fontname="Helvetica-Bold"']
        lines.append(f"  {_q(key)} [{', '.join(attrs)}];")
    seen = set()
    for r in relations:
        edge = (entity_key(r.source), r.predicate, entity_key(r.target))
        if edge in seen:
            continue
        seen.add(edge)
        lines.append(f"  {_q(edge[0])} -> {_q(edge[2])} [label={_q(r.predicate)}];")
    lines.append("}")
    return "\n".join(lines)
