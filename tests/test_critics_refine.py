"""CRAG's knowledge refinement (offline critics) across languages: when no sentence holds an asked-about word as
written, the strips kept are the statements closest in meaning, never a bare heading (before: '# Atlas' was the
only strip kept for a Korean question over an English document, and the answer quoted it)."""
from __future__ import annotations

from rag.config import Settings
from rag.engines.offline import OfflineEngine
from rag.types import Retrieved

TEXT = ("# Atlas\n\nAtlas is a data platform built by Hanbit Labs. The Atlas team is led by Kim Minji. "
        "Atlas was released in 2021.")


def test_cross_lingual_refinement_keeps_the_closest_statement_not_the_heading(tmp_path):
    engine = OfflineEngine(Settings.from_env(data_dir_override=tmp_path))
    doc = Retrieved(id="atlas.md:0", text=TEXT, source="atlas.md", score=0.8, tool="vector", doc_id="atlas",
                    chunk_index=0)
    verdict = engine.refine("데이터 플랫폼을 만든 회사는 어디야?", doc)
    kept = verdict.details["kept"]
    assert kept and not any(k.lstrip().startswith("#") for k in kept)
    assert any("built by Hanbit Labs" in k for k in kept)
    assert "closest in meaning" in verdict.reason
