"""Retrieval tools: name -> factory(kb, settings). A new tool is one module plus one line here."""
from __future__ import annotations

from typing import Any, Callable

from rag.tools.graph import GraphTool
from rag.tools.sql import SqlTool
from rag.tools.vector import VectorTool
from rag.tools.web import WebTool

TOOLS: dict[str, Callable[[Any, Any], Any]] = {
    "vector": VectorTool,
    "graph": GraphTool,
    "web": WebTool,
    "sql": SqlTool,
}

__all__ = ["TOOLS", "VectorTool", "GraphTool", "WebTool", "SqlTool"]
