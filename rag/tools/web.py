"""Web search through Tavily (``tavily-python``), only when ``TAVILY_API_KEY`` is set.

Without a key the tool says so (``available()`` is False) and ``run`` raises ``ToolUnavailable``:
the agent records a failed strategy; nothing else is searched in its place. Tavily unreachable, slow
(``settings.llm_timeout_s``), refusing the key or out of quota is ``ToolUnavailable`` too; any other exception is a
fault and propagates, so the step records an error.
"""
from __future__ import annotations

from typing import Any

from rag.config import Settings
from rag.types import Retrieved, ToolUnavailable

NOT_CONFIGURED = "web search not configured: set TAVILY_API_KEY"


class WebTool:
    name = "web"

    def __init__(self, kb: Any, settings: Settings) -> None:
        self.settings = settings
        self._client = None

    def available(self) -> tuple[bool, str]:
        if not self.settings.tavily_api_key:
            return False, NOT_CONFIGURED
        return True, "Tavily web search"

    def run(self, query: str, top_k: int) -> list[Retrieved]:
        ok, reason = self.available()
        if not ok:
            raise ToolUnavailable(reason)
        import requests
        from tavily import TavilyClient, errors

        # Tavily unreachable, slow, refusing the key or out of quota: unavailable. Anything else (a bug, a reply we
        # cannot read) propagates and the step records it as an error.
        refused = (requests.RequestException, errors.TimeoutError, errors.InvalidAPIKeyError, errors.ForbiddenError,
                   errors.UsageLimitExceededError, errors.MissingAPIKeyError)
        try:
            if self._client is None:
                self._client = TavilyClient(api_key=self.settings.tavily_api_key)
            response = self._client.search(query, max_results=top_k, timeout=self.settings.llm_timeout_s)
        except refused as exc:
            raise ToolUnavailable(f"web search failed: {type(exc).__name__}: {exc}") from exc
        out: list[Retrieved] = []
        for i, item in enumerate(response.get("results", [])[:top_k]):
            url = item.get("url") or f"web:{i}"
            title = (item.get("title") or "").strip()
            content = (item.get("content") or "").strip()
            out.append(Retrieved(id=url, text=f"{title}\n{content}".strip(), source=url,
                                 score=float(item.get("score") or 0.0), tool="web",
                                 metadata={"title": title, "rank": i + 1}))
        return out
