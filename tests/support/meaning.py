"""Fixed semantic scores for answer-selection tests: what a test checks is the choice made from the scores, which a
real embedder would make hard to pin down."""
from __future__ import annotations

import numpy as np

from rag.engines.offline.semantics import SentenceEvidence
from rag.sentences import split_units


def fix_meaning(engine, monkeypatch, scores: dict[str, float], default: float = 0.0) -> None:
    """Every sentence's 0..1 semantic score, by its text (``default`` for one not listed), in place of the engine's
    ``sentence_evidence``."""
    def evidence(question, docs):
        out = []
        for d in docs:
            units = split_units(d.text)[0]
            s = np.asarray([scores.get(u.text, default) for u in units], dtype=np.float32)
            out.append(SentenceEvidence(units, s, s * 3.75, s))
        return out
    monkeypatch.setattr(engine, "sentence_evidence", evidence)
