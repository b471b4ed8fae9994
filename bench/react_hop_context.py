"""Context size per hop in the react variant, with hop summaries and without them (issue 12, seed 002).

    .venv/bin/python bench/react_hop_context.py [--threshold 0.95] [--hops 3] [--ids graph-01,trap-02]

Ingests sample_docs/ (documents and tables) into a temporary data directory, runs the react variant with the
offline engine on the multi-hop sample questions (graph-*) and the trap questions (trap-*, which use every hop),
and prints, per hop, the estimated context tokens the loop carries with hop summaries (question + 2–3 lines per
hop) and what it would carry if every hop's raw chunks were kept (question + every retrieved chunk). Token counts
are ``rag.variants.react.estimate_tokens`` (one per Hangul syllable, Latin word, number or symbol). A higher
``--threshold`` keeps the loop going to the hop limit (``--hops``), so the growth per hop shows. Figures on
sample_docs/ are training figures.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    from rag.config import Settings
    from rag.engines.offline import OfflineEngine
    from rag.kb import KnowledgeBase
    from rag.variants import run_question

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threshold", type=float, default=0.6)
    parser.add_argument("--hops", type=int, default=3)
    parser.add_argument("--ids", default="")
    args = parser.parse_args()
    rows = [json.loads(line) for line in (REPO / "sample_docs" / "questions.jsonl").read_text().splitlines() if line]
    wanted = set(filter(None, args.ids.split(",")))
    rows = [r for r in rows if (r["id"] in wanted if wanted else r["id"].startswith(("graph-", "trap-")))]
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.from_env(data_dir_override=tmp, threshold=args.threshold, hop_limit_lookup=args.hops)
        kb = KnowledgeBase(settings)
        kb.ingest_paths([REPO / "sample_docs"])
        engine = OfflineEngine(settings, embedder=kb.embedder)
        print(f"threshold {args.threshold}, hop limit {args.hops}\n")
        print("| question | hop | tool | context tokens with summaries | without summaries (raw chunks kept) |")
        print("|---|---|---|---|---|")
        totals = {}
        for row in rows:
            run = run_question(row["question"], kb, engine, settings, variant="react")
            for step in run.steps:
                if step.node != "observe":
                    continue
                out = step.output
                print(f"| {row['id']} | {step.attempt} | {step.inputs['strategy']} | {out['context_tokens']} | "
                      f"{out['context_tokens_without_summaries']} |")
                t = totals.setdefault(step.attempt, [0, 0, 0])
                t[0] += out["context_tokens"]
                t[1] += out["context_tokens_without_summaries"]
                t[2] += 1
            print(f"| {row['id']} | stop: {run.stop_reason} | | | |")
        print("\n| hop | runs | mean tokens with summaries | mean without | ratio |")
        print("|---|---|---|---|---|")
        for hop, (w, wo, n) in sorted(totals.items()):
            print(f"| {hop} | {n} | {w / n:.0f} | {wo / n:.0f} | {wo / w:.1f}× |")
        kb.close()


if __name__ == "__main__":
    main()
