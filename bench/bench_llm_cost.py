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
import fnmatch
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
from tests.support.openai_stub import OpenAIStub, batch_grades, purpose_of  # noqa: E402


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
        if purpose == "grade_batch":  # the same verdict per document as one-by-one grading gives
            return batch_grades(body, lambda text: ("correct", 0.9) if good else ("incorrect", 0.1))
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


AGENTIC_MODES: dict[str, dict[str, str]] = {
    # name: settings; "before" is the engine as it was before issue 11 (kept to reproduce the before figures)
    "batch": {"llm_grading": "batch"},
    "parallel": {"llm_grading": "parallel"},
    "per_doc": {"llm_grading": "per_doc"},
    "before": {"llm_grading": "per_doc", "llm_routing": "model", "llm_quality": "model"},
}
METRICS = ("n_questions", "n_errors", "llm_calls_mean", "tokens_mean", "wall_ms_mean", "wall_ms_p95", "attempts_mean",
           "re_route_rate")


def _fingerprint(store: RunStore, run_id: str) -> dict[str, Any]:
    """What must not change between grading modes: the answer, the path and every document's grade."""
    run = store.get(run_id)
    if run is None:
        return {}
    return {"answer": run.answer, "path": list(run.path),
            "grades": [(d.attempt, d.id, d.grade, d.grade_score) for d in run.documents if d.grade is not None]}


def _tokens_by_purpose(store: RunStore, run_ids: list[str]) -> dict[str, dict[str, float]]:
    """Mean prompt / completion tokens and calls per question, by call purpose (where the tokens go)."""
    out: dict[str, dict[str, float]] = {}
    for run_id in run_ids:
        run = store.get(run_id)
        for call in (run.model_calls if run else []):
            row = out.setdefault(call.purpose, {"calls": 0, "prompt": 0, "completion": 0})
            row["calls"] += 1
            row["prompt"] += call.prompt_tokens
            row["completion"] += call.completion_tokens
    n = max(1, len(run_ids))
    return {k: {m: round(v / n, 1) for m, v in row.items()} for k, row in sorted(out.items())}


def _cache_check(kb: KnowledgeBase, store: RunStore, questions: list[Question], q: Question,
                 latency_ms: float) -> dict[str, Any]:
    """A repeated question is a cache hit with 0 model calls; after deleting its cited document it is not."""
    from rag.cache import ask

    with OpenAIStub(respond=OracleModel(questions), latency_s=latency_ms / 1000.0) as stub:
        settings = kb.settings.with_(engine="llm", openai_base_url=stub.base_url, openai_api_key="sk-bench",
                                     router_model="stub-model", generator_model="stub-model", answer_cache=True)
        engine = get_engine(settings)
        first = ask(q.question, kb, engine, settings, store=store)
        repeat = ask(q.question, kb, engine, settings, store=store)
        cited = first.citations[0] if first.citations else None
        if cited is not None and cited.doc_id:
            kb.delete(cited.doc_id)
        after = ask(q.question, kb, engine, settings, store=store)
    return {"question_id": q.id, "first_calls": first.llm_calls, "repeat_hit": bool(repeat.cache.get("hit")),
            "repeat_calls": repeat.llm_calls, "repeat_wall_ms": round(repeat.wall_ms, 1),
            "repeat_links_to": repeat.cache.get("original_run_id") == first.run_id,
            "deleted_source": cited.source if cited else None, "after_delete_hit": bool(after.cache.get("hit")),
            "after_delete_calls": after.llm_calls}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--latencies-ms", default="100", help="fixed per-call latency of the stub, comma-separated")
    p.add_argument("--questions", default=str(REPO / "sample_docs" / "questions.jsonl"))
    p.add_argument("--all-questions", action="store_true", help="not only the covered ones")
    p.add_argument("--ids", default="vec-*,graph-*",
                   help="question ids to run (comma-separated fnmatch patterns); default: the 13 covered questions "
                        "issue 11 measured (the sample set has since gained table questions: --ids '*')")
    p.add_argument("--modes", default=",".join(AGENTIC_MODES),
                   help=f"agentic configurations to run ({', '.join(AGENTIC_MODES)}); the first is the headline")
    p.add_argument("--no-warm-all", action="store_true",
                   help="warm up with one question only (the first mode then pays what later modes find cached)")
    p.add_argument("--out", default=str(REPO / "bench" / "results" / "llm_cost.json"))
    args = p.parse_args(argv)
    latencies = [float(x) for x in args.latencies_ms.split(",")]
    modes = [m for m in args.modes.split(",") if m]
    unknown = [m for m in modes if m not in AGENTIC_MODES]
    if unknown:
        p.error(f"unknown mode(s) {unknown}: choose from {', '.join(AGENTIC_MODES)}")
    full = load_questions(args.questions)
    patterns = [x.strip() for x in args.ids.split(",") if x.strip()]
    chosen = [q for q in full if (args.all_questions or q.effective_kind == "covered")
              and any(fnmatch.fnmatch(q.id, pattern) for pattern in patterns)]
    qset = QuestionSet(name=f"{full.name} ({'all' if args.all_questions else 'covered'}, ids {args.ids})",
                       questions=chosen)

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
                base = offline.with_(engine="llm", openai_base_url=stub.base_url, openai_api_key="sk-bench",
                                     router_model="stub-model", grader_model="stub-model",
                                     generator_model="stub-model", answer_cache=False)
                entry: dict[str, Any] = {"latency_ms": latency, "variants": {}, "stub_requests": {},
                                         "tokens_by_purpose": {}}
                fingerprints: dict[str, dict[str, Any]] = {}
                for i, mode in enumerate(modes):
                    settings = base.with_(**AGENTIC_MODES[mode])
                    engine = get_engine(settings)
                    variants = ["naive", "agentic"] if i == 0 else ["agentic"]
                    # untimed warm-up: the first model call sets up the HTTP client, which must not count for one side;
                    # before the first mode, every question once: what fills once per process and data directory
                    # (sentence vectors of each chunk, graph facts, query vectors) must not favour the modes run later
                    warm = chosen if i == 0 and not args.no_warm_all else chosen[:1]
                    evaluate(QuestionSet(name="warm-up", questions=warm), variants, kb, engine, settings, store)
                    before = len(stub.chat_requests)
                    report = evaluate(qset, variants, kb, engine, settings, store)
                    entry["stub_requests"][mode] = len(stub.chat_requests) - before
                    for name, m in report["variants"].items():
                        label = "naive" if name == "naive" else f"agentic ({mode})"
                        entry["variants"][label] = {k: m[k] for k in METRICS}
                        ids = [r["run_id"] for r in report["questions"] if r["variant"] == name]
                        entry["tokens_by_purpose"][label] = _tokens_by_purpose(store, ids)
                    fingerprints[mode] = {r["id"]: _fingerprint(store, r["run_id"]) for r in report["questions"]
                                          if r["variant"] == "agentic"}
            naive = entry["variants"].get("naive")
            entry["agentic_over_naive"] = {}
            for label, v in entry["variants"].items():
                if label == "naive" or not naive:
                    continue
                entry["agentic_over_naive"][label] = {
                    k: (round(v[k] / naive[k], 2) if naive[k] else None)
                    for k in ("llm_calls_mean", "tokens_mean", "wall_ms_mean", "wall_ms_p95")}
            if "per_doc" in fingerprints:
                entry["identical_to_per_doc"] = {
                    mode: all(fingerprints[mode].get(q) == fp for q, fp in fingerprints["per_doc"].items())
                    for mode in fingerprints if mode not in ("per_doc", "before")}
            rows.append(entry)
            print(json.dumps({k: entry[k] for k in ("latency_ms", "variants", "agentic_over_naive")}), flush=True)
        cache_check = _cache_check(kb, store, full.questions, chosen[0], latencies[0])
        print(json.dumps({"cache": cache_check}, ensure_ascii=False), flush=True)
        kb.close()

    out = {"bench": "agentic vs naive, llm engine against the local OpenAI-compatible stub (oracle replies)",
           "question_set": qset.name, "n_questions": len(chosen), "modes": {m: AGENTIC_MODES[m] for m in modes},
           "results": rows, "cache": cache_check,
           "machine": {"python": platform.python_version(), "cpu_count": __import__("os").cpu_count()},
           "total_s": round(time.perf_counter() - t_start, 1)}
    path = Path(args.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2), encoding="utf-8")
    print()
    print("| per-call latency | variant | model calls / q | tokens / q | wall ms mean | wall ms p95 "
          "| ÷ naive: calls | tokens | wall |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for entry in rows:
        for label, v in entry["variants"].items():
            r = entry["agentic_over_naive"].get(label) or {}
            ratios = " | ".join(f"{r[k]}×" if r.get(k) is not None else "–"
                                for k in ("llm_calls_mean", "tokens_mean", "wall_ms_mean"))
            print(f"| {entry['latency_ms']:g} ms | {label} | {v['llm_calls_mean']} | {v['tokens_mean']} | "
                  f"{v['wall_ms_mean']} | {v['wall_ms_p95']} | {ratios} |")
        if "identical_to_per_doc" in entry:
            print(f"\nanswers, paths and grades identical to per_doc: {entry['identical_to_per_doc']}")
        print("\ntokens per question by purpose (calls / prompt / completion):")
        for label, purposes in entry["tokens_by_purpose"].items():
            print(f"  {label}: " + "; ".join(f"{k} {v['calls']} / {v['prompt']} / {v['completion']}"
                                              for k, v in purposes.items()))
    c = cache_check
    print(f"\nanswer cache ({c['question_id']}): first ask {c['first_calls']} model calls; repeat: hit={c['repeat_hit']} "
          f"with {c['repeat_calls']} calls in {c['repeat_wall_ms']} ms; after deleting {c['deleted_source']}: "
          f"hit={c['after_delete_hit']} with {c['after_delete_calls']} calls")
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
