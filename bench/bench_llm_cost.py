"""What the agent's extra model calls cost: agentic vs naive with the ``llm`` engine, model calls priced fairly.

Not a test. Run:  python bench/bench_llm_cost.py [--latencies-ms 0,100,300] [--all-questions]

Both variants run the sample questions through ``rag.eval.evaluate`` (the same runner as ``python -m rag eval``) with
the ``llm`` engine — the real langchain-openai client — against ``tests/support/openai_stub.py`` on 127.0.0.1, which
answers every model call after a fixed latency. Sweeping that latency shows how the agentic/naive wall-time ratio
moves from "our own overhead" (0 ms) towards "number of model calls" (a slow model).

The stub plays an *oracle* model, so the agent takes the path a good model would make it take: classify returns the
question's expected route, grades and quality are high on covered questions and low on the others (uncovered, web),
answers contain the expected key facts. Correctness figures here measure the oracle, not a model: read only the
cost columns (model calls, tokens, wall time). Token counts are the stub's (whitespace words of prompt and reply).
By default only the covered questions run (where both variants can answer, the fair comparison of cost); with
``--all-questions`` the traps, web and direct questions run too (re-routes and direct answers change the mix).

The knowledge base is the sample documents, ingested once with the offline engine (rule-based extraction, so the
graph has facts without a model) into a temporary data directory. Output: bench/results/llm_cost.json + a table.
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rag.config import Settings  # noqa: E402
from rag.engines import get_engine  # noqa: E402
from rag.eval.questions import Question, QuestionSet, load_questions  # noqa: E402
from rag.eval.runner import evaluate  # noqa: E402
from rag.kb import KnowledgeBase  # noqa: E402
from rag.runstore import RunStore  # noqa: E402
from tests.support.openai_stub import OpenAIStub, purpose_of  # noqa: E402


class OracleModel:
    """Schema-valid replies decided from the question each request is about (found in its messages)."""

    def __init__(self, questions: list[Question]) -> None:
        self.by_text = sorted(questions, key=lambda q: -len(q.question))

    def _question(self, body: dict[str, Any]) -> Question | None:
        text = " ".join(str(m.get("content") or "") for m in body.get("messages", []) if m.get("role") != "system")
        return next((q for q in self.by_text if q.question in text), None)

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        purpose, q = purpose_of(body), self._question(body)
        good = q is not None and q.effective_kind == "covered"
        facts = " / ".join(group[0] for group in q.expected) if q and q.expected else "the documents say so"
        if purpose == "classify":
            route = (q.expected_route if q and q.expected_route in ("vector", "graph", "web", "direct") else "vector")
            return {"strategy": route, "reason": "oracle"}
        if purpose == "grade":
            return {"label": "correct" if good else "incorrect", "score": 0.9 if good else 0.1, "reason": "oracle"}
        if purpose == "quality":
            return {"score": 0.9 if good else 0.2, "reason": "oracle"}
        if purpose == "rewrite":
            return {"query": (q.question if q else "query") + " (rephrased)", "reason": "oracle"}
        if purpose == "partial":
            return {"found": [], "not_found": [q.question if q else "the question"], "citations": [],
                    "nothing_relevant": True}
        if purpose == "direct":
            return {"answer": facts, "unsure": False}
        if purpose == "extract":
            return {"entities": [], "relations": []}
        return {"conclusion": f"{facts} [1]", "evidence": [f"{facts} [1]"], "citations": [1], "uncertainty": "none",
                "insufficient_evidence": not good and q is not None and q.effective_kind == "uncovered"}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--latencies-ms", default="0,100,300", help="fixed per-call latency of the stub, comma-separated")
    p.add_argument("--questions", default=str(REPO / "sample_docs" / "questions.jsonl"))
    p.add_argument("--all-questions", action="store_true", help="not only the covered ones")
    p.add_argument("--variants", default="naive,agentic")
    p.add_argument("--out", default=str(REPO / "bench" / "results" / "llm_cost.json"))
    args = p.parse_args(argv)
    latencies = [float(x) for x in args.latencies_ms.split(",")]
    variants = args.variants.split(",")
    full = load_questions(args.questions)
    chosen = [q for q in full if args.all_questions or q.effective_kind == "covered"]
    qset = QuestionSet(name=f"{full.name} ({'all' if args.all_questions else 'covered'})", questions=chosen)

    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="rag-llm-cost-") as tmp:
        offline = Settings.from_env(data_dir_override=tmp, engine="offline")
        kb = KnowledgeBase(offline)
        results = kb.ingest_paths([REPO / "sample_docs"])
        print(f"ingested {sum(r.status != 'error' for r in results)} files ({kb.counts()})", flush=True)
        store = RunStore(offline.data_dir)
        rows = []
        for latency in latencies:
            with OpenAIStub(respond=OracleModel(full.questions), latency_s=latency / 1000.0) as stub:
                settings = offline.with_(engine="llm", openai_base_url=stub.base_url, openai_api_key="sk-bench",
                                         router_model="stub-model", generator_model="stub-model")
                engine = get_engine(settings)
                # untimed warm-up: the first model call sets up the HTTP client, which must not count for one variant
                evaluate(QuestionSet(name="warm-up", questions=chosen[:1]), variants, kb, engine, settings, store)
                warm_requests = len(stub.chat_requests)
                report = evaluate(qset, variants, kb, engine, settings, store)
                n_requests = len(stub.chat_requests) - warm_requests
            entry = {"latency_ms": latency, "stub_requests": n_requests, "variants": {}}
            for name, m in report["variants"].items():
                entry["variants"][name] = {k: m[k] for k in ("n_questions", "n_errors", "llm_calls_mean",
                                                             "tokens_mean", "wall_ms_mean", "wall_ms_p95",
                                                             "attempts_mean", "re_route_rate")}
                model_ms = (m["llm_calls_mean"] or 0) * latency
                entry["variants"][name]["model_share_of_wall"] = (round(model_ms / m["wall_ms_mean"], 3)
                                                                  if m["wall_ms_mean"] else None)
            a, n = entry["variants"].get("agentic"), entry["variants"].get("naive")
            if a and n and n["wall_ms_mean"]:
                entry["agentic_over_naive"] = {
                    "wall_ms_mean": round(a["wall_ms_mean"] / n["wall_ms_mean"], 2),
                    "wall_ms_p95": round(a["wall_ms_p95"] / n["wall_ms_p95"], 2) if n["wall_ms_p95"] else None,
                    "llm_calls_mean": round(a["llm_calls_mean"] / n["llm_calls_mean"], 2) if n["llm_calls_mean"]
                    else None,
                    "tokens_mean": round(a["tokens_mean"] / n["tokens_mean"], 2) if n["tokens_mean"] else None}
            rows.append(entry)
            print(json.dumps(entry), flush=True)
        kb.close()

    out = {"bench": "agentic vs naive, llm engine against the local OpenAI-compatible stub (oracle replies)",
           "question_set": qset.name, "n_questions": len(chosen), "results": rows,
           "machine": {"python": platform.python_version(), "cpu_count": __import__("os").cpu_count()},
           "total_s": round(time.perf_counter() - t_start, 1)}
    path = Path(args.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2), encoding="utf-8")
    print()
    print("| per-call latency | variant | model calls / q | tokens / q | wall ms mean | wall ms p95 | model share |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for entry in rows:
        for name, v in entry["variants"].items():
            print(f"| {entry['latency_ms']:g} ms | {name} | {v['llm_calls_mean']} | {v['tokens_mean']} | "
                  f"{v['wall_ms_mean']} | {v['wall_ms_p95']} | {v['model_share_of_wall']} |")
        if "agentic_over_naive" in entry:
            r = entry["agentic_over_naive"]
            print(f"| {entry['latency_ms']:g} ms | **agentic ÷ naive** | {r['llm_calls_mean']}× | {r['tokens_mean']}× "
                  f"| {r['wall_ms_mean']}× | {r['wall_ms_p95']}× | |")
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
