"""Decision engines: every judging step (classify, grade, evaluate, rewrite, generate, extract, and the critics of
``rag.engines.roles``).

``ENGINES`` maps a name to a factory ``(settings) -> DecisionEngine``; the built-in ``offline`` and
``llm`` engines register here the same way an add-on would (``register_engine``).
``get_engine(settings)`` returns the engine named by ``settings.engine``.
"""
from __future__ import annotations

from typing import Callable

from rag.config import Settings
from rag.types import DecisionEngine, RagError

EngineFactory = Callable[[Settings], DecisionEngine]


def _offline(settings: Settings) -> DecisionEngine:
    from rag.engines.offline import OfflineEngine

    return OfflineEngine(settings)


def _llm(settings: Settings) -> DecisionEngine:
    from rag.engines.llm import LLMEngine  # imports langchain-openai only when asked for

    return LLMEngine(settings)


ENGINES: dict[str, EngineFactory] = {"offline": _offline, "llm": _llm}


def register_engine(name: str, factory: EngineFactory) -> None:
    """Add (or replace) an engine: one new module plus this one call."""
    ENGINES[name] = factory


def _build(settings: Settings, name: str) -> DecisionEngine:
    try:
        factory = ENGINES[name]
    except KeyError:
        raise RagError(f"Unknown decision engine {name!r}; choose one of: {', '.join(sorted(ENGINES))} "
                       "(set RAG_ENGINE, or the engine named in RAG_ROLES).") from None
    return factory(settings)


def get_engine(settings: Settings, name: str | None = None) -> DecisionEngine:
    """The engine ``name`` (default: ``settings.engine``) built for these settings. With ``settings.roles``
    (RAG_ROLES, e.g. "grader=llm,router=offline") and no explicit name: a ``RoleEngine`` whose named roles use
    their engine and every other role the default one."""
    if name is not None or not getattr(settings, "roles", ""):
        return _build(settings, name or settings.engine)
    from rag.engines.roles import RoleEngine, parse_roles

    wanted = parse_roles(settings.roles)
    built: dict[str, DecisionEngine] = {settings.engine: _build(settings, settings.engine)}
    for engine_name in wanted.values():
        if engine_name not in built:
            built[engine_name] = _build(settings, engine_name)
    return RoleEngine({role: built[n] for role, n in wanted.items()}, built[settings.engine])


__all__ = ["ENGINES", "EngineFactory", "get_engine", "register_engine"]
