"""Mention: one name found in a sentence (span, name, type, the Korean particle after it)."""
from __future__ import annotations

import re
from dataclasses import dataclass


MAX_ENTITY_CHARS = 60

_KO_PARTICLE_RE = re.compile(
    r"^(?P<p>이었다|였다|입니다|이며|이고|이다|다(?=[\s.,]|$)|에\s*의해|에\s*의하여|에서는|에서|에게|에는|에|으로는|으로|로는|로|"
    r"은|는|이|가|을|를|의|와|과|도|께서)"
)


@dataclass
class Mention:
    start: int
    end: int
    name: str
    type: str
    particle: str = ""  # Korean particle right after the mention ("는", "를", "에서", ...) or ""
