"""Engine benchmark (not a test): ingest throughput vs the raw embedder, and agentic vs naive wall time.

    python bench/bench_engine.py                       # sample_docs + a ~300-chunk synthetic corpus, offline engine
    python bench/bench_engine.py --synthetic-chunks 600 --repeat 3

What it measures, in one process and one run (machines are noisy: read the ratios, not the absolute figures):

(a) ingest throughput — ``KnowledgeBase.ingest_paths`` on the sample documents and on a synthetic corpus made by
    re-arranging them, in chunks/s, against ``get_embedder(settings).embed_documents`` on the very same chunk texts
    (read back with ``kb.chunks``). The ratio says how much of ingest is the embedder and how much is everything else
    (parsing, splitting, Chroma writes, entity extraction, graph writes); the per-stage times come from the progress
    callback. Ingest embeds every sentence (``rag.sentences``, stored for the offline engine) and pools each chunk's
    vector from them, so the ratio includes the sentence vectors (issue 8 budget: at most 1.6×).
(b) agentic vs naive — every question of ``sample_docs/questions.jsonl`` through ``run_question`` with both variants
    on the same index and the same decision engine (offline by default): wall time mean / p50 / p95, their ratio, and
    the model calls recorded in the traces (the offline engine makes none).
(c) offline engine, before vs after — the same questions through the agentic and naive variants on the same index,
    once with today's ``OfflineEngine`` and once with the offline engine of an earlier commit (``--baseline-rev``,
    default: the last single-file ``rag/engines/offline.py``, before sentence-level judgement), loaded from git into
    this process; runs alternate between the two, and the ratio of mean wall times is the figure (issue 8 budget:
    at most 1.5×). A single-file engine reads today's sentence-free parts (textutil, extract); a commit where the
    engine is a package (``rag/engines/offline/``) is loaded with its whole ``rag/`` tree as ``rag_baseline``, so it
    runs with its own text utilities too (the index and the tools are today's).
The llm engine's cost (model calls priced by a fixed per-call latency against the local stub) is measured by
``bench/bench_llm_cost.py``; hybrid retrieval latency as the collection grows by ``bench/bench_retrieval.py``.

Everything runs in a temporary data directory on the embedded backends (Chroma PersistentClient, networkx graph);
the web tool is left unconfigured so nothing leaves the machine. Results go to ``bench/results/`` (git-ignored) as
JSON and Markdown, and the Markdown table is printed.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(REPO))

from rag.config import Settings  # noqa: E402
from rag.embeddings import get_embedder  # noqa: E402
from rag.engines import get_engine  # noqa: E402
from rag.kb import KnowledgeBase  # noqa: E402
from rag.loaders import load_document, split_text  # noqa: E402
from rag.variants import run_question  # noqa: E402

# the last commit whose offline engine was the single module rag/engines/offline.py (before issue 8)
DEFAULT_BASELINE_REV = "8a6ca05^"

LOADABLE = (".txt", ".md", ".pdf", ".docx", ".html", ".htm")
SKIP_NAMES = {"readme.md"}  # the corpus README describes the set; it is not part of the corpus


# ---- small helpers -----------------------------------------------------------------------------------------------

def percentile(values: list[float], q: float) -> float | None:
    """Linear-interpolated percentile (q in 0..100) of a non-empty list, else None."""
    if not values:
        return None
    xs = sorted(values)
    if len(xs) == 1:
        return xs[0]
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def ratio(a: float | None, b: float | None) -> float | None:
    return (a / b) if (a is not None and b) else None


def fmt(value: Any, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return str(value)


def corpus_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir()
                  if p.is_file() and p.suffix.lower() in LOADABLE and p.name.lower() not in SKIP_NAMES)


def table_files(folder: Path) -> list[Path]:
    """The table files under ``folder`` (any depth): the table store's input, not chunked."""
    from rag.tables import is_table_file

    return sorted(p for p in folder.rglob("*") if p.is_file() and is_table_file(p.name))


def git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True,
                              timeout=10).stdout.strip() or "unknown"
    except Exception:
        return "unknown"


def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {"cpu": cpu, "cpu_count": os.cpu_count(), "usable_cpus": affinity, "python": platform.python_version(),
            "platform": platform.platform()}


def bench_settings(data_dir: Path, engine: str) -> Settings:
    """Settings for one isolated benchmark KB: embedded backends, no web, the chosen decision engine."""
    return Settings.from_env(data_dir_override=data_dir, engine=engine, chroma_host=None, neo4j_uri=None,
                             tavily_api_key=None)


class StageClock:
    """Progress callback that attributes wall time to ingest stages (time between one report and the next)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._last: tuple[str, float] | None = None

    def __call__(self, file_name: str, stage: str, fraction: float) -> None:
        now = time.perf_counter()
        if self._last is not None:
            prev_stage, t0 = self._last
            self.seconds[prev_stage] = self.seconds.get(prev_stage, 0.0) + (now - t0)
        self._last = (stage, now)

    def close(self) -> None:
        self.__call__("", "(after last report)", 1.0)
        self.seconds.pop("(after last report)", None)


# ---- synthetic corpus ----------------------------------------------------------------------------------------------

def make_synthetic_corpus(sources: list[Path], out_dir: Path, target_chunks: int, chunk_size: int,
                          overlap: int, seed: int = 7) -> tuple[list[Path], int]:
    """Write ``.txt`` variants of the sample documents (paragraphs shuffled, numbers and names changed, a header
    naming the copy) until they split into at least ``target_chunks`` chunks. Every file is distinct, so ingest
    cannot skip any as unchanged. Returns the files and their expected chunk count."""
    rng = random.Random(seed)
    texts = [(p.stem, load_document(p.name, p.read_bytes())) for p in sources]
    out_dir.mkdir(parents=True, exist_ok=True)
    regions = ["판교", "대전", "부산", "광주", "Incheon", "Suwon", "Jeju", "Ulsan"]
    files: list[Path] = []
    total = 0
    copy = 0
    while total < target_chunks:
        copy += 1
        for stem, text in texts:
            paras = [p for p in re.split(r"\n\s*\n", text) if p.strip()]
            rng.shuffle(paras)
            shift = rng.randint(1, 9)
            body = "\n\n".join(paras)
            body = re.sub(r"\d+", lambda m: str(int(m.group()) + shift), body)
            body = body.replace("Hanbit", f"Hanbit{copy}").replace("한빛", f"한빛{copy}")
            header = f"# {stem} — 사본 {copy} / copy {copy} ({rng.choice(regions)})\n\n"
            text_out = header + body
            path = out_dir / f"{stem}__copy{copy:03d}.txt"
            path.write_text(text_out, encoding="utf-8")
            files.append(path)
            total += len(split_text(text_out, chunk_size, overlap))
            if total >= target_chunks:
                break
    return files, total


# ---- (a) ingest throughput -----------------------------------------------------------------------------------------

def _ingest_once(files: list[Path], data_dir: Path, engine_name: str) -> tuple[dict[str, Any], KnowledgeBase,
                                                                               Settings, list[str]]:
    """One ingest into a fresh data directory, after warming the stores; returns timings and the chunk texts."""
    settings = bench_settings(data_dir, engine_name)
    kb = KnowledgeBase(settings)
    # warm the stores (Chroma client, collection, graph file) with a throw-away document
    warm = kb.ingest_bytes("bench_warmup.txt", "워밍업 문서입니다. Warm-up document for the benchmark.".encode())
    if warm.status != "error" and warm.doc_id:
        kb.delete(warm.doc_id)

    clock = StageClock()
    t0 = time.perf_counter()
    results = kb.ingest_paths(files, progress=clock)
    ingest_s = time.perf_counter() - t0
    clock.close()

    statuses: dict[str, int] = {}
    for r in results:
        statuses[r.status] = statuses.get(r.status, 0) + 1
    texts: list[str] = []
    for r in results:
        if r.status != "error" and r.doc_id:
            texts.extend(c.text for c in kb.chunks(r.doc_id))
    info = {"ingest_s": ingest_s, "stage_s": dict(clock.seconds), "statuses": statuses,
            "errors": [f"{r.source}: {r.error}" for r in results if r.status == "error"]}
    return info, kb, settings, texts


def bench_ingest(label: str, files: list[Path], data_dir: Path, engine_name: str,
                 rounds: int) -> tuple[dict[str, Any], KnowledgeBase, Settings]:
    """``rounds`` pairs of (ingest into a fresh data directory, raw embedder on the same chunk texts), back to back,
    so that a slow spell on a shared machine hits both sides of a pair. The ratio reported is the median of the
    per-pair ratios; throughputs are from the fastest round of each side."""
    settings = bench_settings(data_dir / "warm", engine_name)
    embedder = get_embedder(settings)  # shared with every KnowledgeBase of this process
    embedder.embed_documents(["passage warm-up"])  # model load is not throughput

    pairs: list[dict[str, Any]] = []
    kb: KnowledgeBase | None = None
    texts: list[str] = []
    for i in range(max(1, rounds)):
        if kb is not None:
            kb.close()
        info, kb, settings, texts = _ingest_once(files, data_dir / f"round{i + 1}", engine_name)
        t0 = time.perf_counter()
        vectors = embedder.embed_documents(texts)
        info["embed_s"] = time.perf_counter() - t0
        assert len(vectors) == len(texts)
        info["ratio"] = ratio(info["ingest_s"], info["embed_s"])
        pairs.append(info)
    assert kb is not None

    n_chunks = len(texts)
    ingest_s = min(p["ingest_s"] for p in pairs)
    embed_s = min(p["embed_s"] for p in pairs)
    best = min(pairs, key=lambda p: p["ingest_s"])
    counts = kb.counts()
    row = {
        "corpus": label,
        "files": len(files),
        "rounds": len(pairs),
        "statuses": pairs[-1]["statuses"],
        "errors": pairs[-1]["errors"],
        "chunks": n_chunks,
        "chars": sum(len(t) for t in texts),
        "entities": counts.get("entities"),
        "relations": counts.get("relations"),
        "ingest_s": ingest_s,
        "embed_s": embed_s,
        "ingest_chunks_per_s": n_chunks / ingest_s if ingest_s else None,
        "embed_chunks_per_s": n_chunks / embed_s if embed_s else None,
        # > 1: ingest takes that many times longer than embedding the same chunks (median of back-to-back pairs)
        "ingest_over_embed_time": statistics.median(p["ratio"] for p in pairs if p["ratio"] is not None),
        "pairs": [{"ingest_s": round(p["ingest_s"], 3), "embed_s": round(p["embed_s"], 3),
                   "ratio": round(p["ratio"], 3) if p["ratio"] else None} for p in pairs],
        "stage_s": {k: round(v, 4) for k, v in sorted(best["stage_s"].items(), key=lambda kv: -kv[1])},
        "embedder": getattr(embedder, "name", type(embedder).__name__),
        "chunk_size": settings.chunk_size,
        "chunk_overlap": settings.chunk_overlap,
    }
    return row, kb, settings


# ---- (b) agentic vs naive -------------------------------------------------------------------------------------------

def load_question_rows(path: Path) -> list[dict[str, Any]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rows.append(json.loads(line))
    return rows


def key_fact_hit(answer: str, expected: list[list[str]]) -> bool | None:
    try:
        from rag.eval.metrics import key_fact_hit as hit
    except ImportError:  # pragma: no cover - the eval package is part of the repo
        low = (answer or "").casefold()
        return all(any(s.casefold() in low for s in g) for g in expected) if expected else None
    return hit(answer, expected)


def bench_variants(questions: list[dict[str, Any]], kb: KnowledgeBase, settings: Settings, engine: Any,
                   repeat: int, variants: tuple[str, ...] = ("naive", "agentic"),
                   log: Callable[[str], None] = print) -> dict[str, Any]:
    # warm-up (first graph compile, first query embedding, BM25 index build): not counted
    for v in variants:
        run_question(questions[0]["question"], kb=kb, engine=engine, settings=settings, variant=v)

    rows: list[dict[str, Any]] = []
    for r in range(repeat):
        for i, q in enumerate(questions):
            # alternate the order so neither variant always runs on a cache warmed by the other
            order = variants if (i + r) % 2 == 0 else tuple(reversed(variants))
            for v in order:
                t0 = time.perf_counter()
                run = run_question(q["question"], kb=kb, engine=engine, settings=settings, variant=v)
                wall_ms = (time.perf_counter() - t0) * 1000.0
                rows.append({
                    "id": q.get("id"), "repeat": r, "variant": v, "kind": q.get("kind"),
                    "expected_route": q.get("expected_route"), "route": run.route,
                    "wall_ms": wall_ms, "run_wall_ms": run.wall_ms, "llm_calls": run.llm_calls,
                    "tokens": run.tokens.get("total", 0), "attempts": len(run.attempts), "steps": len(run.steps),
                    "path": list(run.path), "abstained": bool(run.abstained), "partial": bool(run.partial),
                    "stop_reason": run.stop_reason, "error": run.error,
                    "hit": key_fact_hit(run.answer, q.get("expected") or []) if q.get("kind") in ("covered", "direct") else None,
                    "answer": run.answer[:300],
                })
        log(f"  repeat {r + 1}/{repeat}: {len(questions)} questions x {len(variants)} variants")

    summary: dict[str, Any] = {}
    for v in variants:
        vr = [x for x in rows if x["variant"] == v]
        walls = [x["wall_ms"] for x in vr]
        covered = [x for x in vr if x["kind"] == "covered"]
        uncovered = [x for x in vr if x["kind"] in ("uncovered", "web")]
        routed = [x for x in vr if x["expected_route"]]
        summary[v] = {
            "runs": len(vr),
            "wall_ms_mean": statistics.fmean(walls) if walls else None,
            "wall_ms_p50": percentile(walls, 50),
            "wall_ms_p95": percentile(walls, 95),
            "covered_wall_ms_mean": statistics.fmean([x["wall_ms"] for x in covered]) if covered else None,
            "llm_calls_total": sum(x["llm_calls"] for x in vr),
            "llm_calls_mean": statistics.fmean([x["llm_calls"] for x in vr]) if vr else None,
            "tokens_total": sum(x["tokens"] for x in vr),
            "steps_mean": statistics.fmean([x["steps"] for x in vr]) if vr else None,
            "attempts_mean": statistics.fmean([x["attempts"] for x in vr]) if vr else None,
            "route_match": (sum(1 for x in routed if x["route"] == x["expected_route"]) / len(routed)
                            if routed and v != "naive" else None),
            "key_fact_hit_rate_covered": (sum(1 for x in covered if x["hit"]) / len(covered)) if covered else None,
            # flagged = told the user the evidence was missing or incomplete (abstained or partial answer)
            "flagged_on_uncovered_or_web": (sum(1 for x in uncovered if x["abstained"] or x["partial"])
                                            / len(uncovered) if uncovered else None),
            "errors": sum(1 for x in vr if x["error"]),
        }
    a, n = summary.get("agentic", {}), summary.get("naive", {})
    summary["agentic_over_naive"] = {
        "wall_ms_mean": ratio(a.get("wall_ms_mean"), n.get("wall_ms_mean")),
        "wall_ms_p95": ratio(a.get("wall_ms_p95"), n.get("wall_ms_p95")),
        "covered_wall_ms_mean": ratio(a.get("covered_wall_ms_mean"), n.get("covered_wall_ms_mean")),
    }
    return {"rows": rows, "summary": summary}


_IMPORT_RAG = re.compile(r"\b(from|import)(\s+)rag(?=[\s.])")


def _load_baseline_package(rev: str, settings: Settings) -> Any:
    """The offline engine package of commit ``rev`` (``rag/engines/offline/``, after the engine became a package):
    that commit's whole ``rag/`` tree, taken with ``git archive`` into a temporary folder as the package
    ``rag_baseline`` (its ``rag.`` imports rewritten), so the engine runs with its own text utilities, rules and
    helpers; the knowledge base, tools and graph are today's. Shares this process's embedder."""
    import importlib
    import io
    import tarfile

    proc = subprocess.run(["git", "archive", "--format=tar", rev, "rag"], cwd=REPO, capture_output=True, timeout=60)
    if proc.returncode != 0:
        raise RuntimeError(f"git archive {rev} rag failed: {proc.stderr.decode(errors='replace').strip()}")
    folder = Path(tempfile.mkdtemp(prefix="rag-bench-baseline-"))
    with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as tar:
        tar.extractall(folder, filter="data")
    (folder / "rag").rename(folder / "rag_baseline")
    for path in (folder / "rag_baseline").rglob("*.py"):
        path.write_text(_IMPORT_RAG.sub(r"\1\2rag_baseline", path.read_text(encoding="utf-8")), encoding="utf-8")
    sys.path.insert(0, str(folder))
    try:
        module = importlib.import_module("rag_baseline.engines.offline")
    finally:
        sys.path.remove(str(folder))
    return module.OfflineEngine(settings, embedder=get_embedder(settings))


def load_baseline_engine(rev: str, settings: Settings) -> Any:
    """The offline engine of commit ``rev``, imported under another module name, sharing this process's embedder:
    ``git show REV:rag/engines/offline.py`` for a commit before the engine became a package, else that commit's
    package (``_load_baseline_package``). Raises RuntimeError when git cannot show it."""
    import importlib.util

    proc = subprocess.run(["git", "show", f"{rev}:rag/engines/offline.py"], cwd=REPO, capture_output=True,
                          text=True, timeout=30)
    if proc.returncode != 0 and "does not exist" in proc.stderr:
        return _load_baseline_package(rev, settings)
    if proc.returncode != 0:
        raise RuntimeError(f"git show {rev}:rag/engines/offline.py failed: {proc.stderr.strip()}")
    folder = Path(tempfile.mkdtemp(prefix="rag-bench-baseline-"))
    path = folder / "baseline_offline_engine.py"
    path.write_text(proc.stdout, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("baseline_offline_engine", path)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module.OfflineEngine(settings, embedder=get_embedder(settings))


def bench_before_after(questions: list[dict[str, Any]], kb: KnowledgeBase, settings: Settings, rev: str,
                       repeat: int, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Mean wall time per question, today's offline engine vs the one of ``rev``, same index, runs alternating."""
    engines = {"before": load_baseline_engine(rev, settings), "after": get_engine(settings, "offline")}
    variants = ("agentic", "naive")
    for name, engine in engines.items():  # warm-up: first compile, first embeddings, anchors
        for v in variants:
            run_question(questions[0]["question"], kb=kb, engine=engine, settings=settings, variant=v)
    walls: dict[tuple[str, str], list[float]] = {(n, v): [] for n in engines for v in variants}
    hits: dict[tuple[str, str], list[bool]] = {(n, v): [] for n in engines for v in variants}
    for r in range(repeat):
        for i, q in enumerate(questions):
            order = list(engines) if (i + r) % 2 == 0 else list(reversed(engines))
            for name in order:
                for v in variants:
                    t0 = time.perf_counter()
                    run = run_question(q["question"], kb=kb, engine=engines[name], settings=settings, variant=v)
                    walls[(name, v)].append((time.perf_counter() - t0) * 1000.0)
                    if q.get("kind") == "covered":
                        hits[(name, v)].append(bool(key_fact_hit(run.answer, q.get("expected") or [])))
        log(f"  repeat {r + 1}/{repeat}: {len(questions)} questions x 2 engines x {len(variants)} variants")
    summary: dict[str, Any] = {"baseline_rev": rev}
    for (name, v), xs in walls.items():
        summary[f"{name}_{v}"] = {"runs": len(xs), "wall_ms_mean": statistics.fmean(xs) if xs else None,
                                  "wall_ms_p95": percentile(xs, 95),
                                  "key_fact_hit_rate_covered": (sum(hits[(name, v)]) / len(hits[(name, v)])
                                                                if hits[(name, v)] else None)}
    for v in variants:
        summary[f"after_over_before_{v}"] = ratio(summary[f"after_{v}"]["wall_ms_mean"],
                                                  summary[f"before_{v}"]["wall_ms_mean"])
    return summary


# ---- report --------------------------------------------------------------------------------------------------------

def markdown(result: dict[str, Any]) -> str:
    meta = result["meta"]
    out = [f"## Engine benchmark — {meta['date']}", "",
           f"Machine: {meta['machine']['cpu']}, {meta['machine']['usable_cpus']} usable CPUs "
           f"(`os.cpu_count()` = {meta['machine']['cpu_count']}), Python {meta['machine']['python']}. "
           f"Commit `{meta['commit']}`. Engine `{meta['engine']}`, embedder `{meta['embedder']}`. "
           f"Command: `{meta['command']}`", "",
           "### (a) Ingest throughput vs the raw embedder (same chunks)", "",
           "Each round ingests into a fresh data directory and then runs the raw embedder on the same chunk texts, "
           "back to back; times and throughputs are the fastest round of each side, the ratio is the median of the "
           "per-round ratios.", "",
           "| corpus | files | chunks | entities | relations | rounds | ingest s | ingest chunks/s | raw embed s "
           "| raw embed chunks/s | ingest ÷ embed time |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in result["ingest"]:
        out.append(f"| {row['corpus']} | {row['files']} | {row['chunks']} | {fmt(row['entities'])} | "
                   f"{fmt(row['relations'])} | {row['rounds']} | {fmt(row['ingest_s'], 2)} | {fmt(row['ingest_chunks_per_s'])} | "
                   f"{fmt(row['embed_s'], 2)} | {fmt(row['embed_chunks_per_s'])} | "
                   f"{fmt(row['ingest_over_embed_time'], 2)}× |")
    out += ["", "Where ingest time went (seconds, fastest round, from the progress callback) and the rounds "
            "(ingest s / raw embed s):", ""]
    for row in result["ingest"]:
        stages = ", ".join(f"{k} {v:.2f}" for k, v in row["stage_s"].items()) or "–"
        rounds = "; ".join(f"{p['ingest_s']:.2f} / {p['embed_s']:.2f}" for p in row["pairs"])
        out.append(f"- {row['corpus']}: {stages}. Rounds: {rounds}")
    var = result.get("variants")
    if var:
        s = var["summary"]
        out += ["", f"### (b) Agentic vs naive, {meta['engine']} engine, {meta['n_questions']} sample questions "
                f"× {meta['repeat']}", "",
                "| variant | runs | wall ms mean | p50 | p95 | model calls (total / mean) | steps mean "
                "| route = expected | key fact hit (covered) | flagged (uncovered+web) |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for v in ("naive", "agentic"):
            if v not in s:
                continue
            x = s[v]
            route = "–" if x["route_match"] is None else f"{x['route_match']:.0%}"
            hit = "–" if x["key_fact_hit_rate_covered"] is None else f"{x['key_fact_hit_rate_covered']:.0%}"
            abst = "–" if x["flagged_on_uncovered_or_web"] is None else f"{x['flagged_on_uncovered_or_web']:.0%}"
            out.append(f"| {v} | {x['runs']} | {fmt(x['wall_ms_mean'])} | {fmt(x['wall_ms_p50'])} | "
                       f"{fmt(x['wall_ms_p95'])} | {x['llm_calls_total']} / {fmt(x['llm_calls_mean'], 2)} | "
                       f"{fmt(x['steps_mean'], 1)} | {route} | {hit} | {abst} |")
        r = s["agentic_over_naive"]
        out += ["", f"Agentic ÷ naive wall time: mean {fmt(r['wall_ms_mean'], 2)}×, p95 {fmt(r['wall_ms_p95'], 2)}×, "
                f"covered questions only {fmt(r['covered_wall_ms_mean'], 2)}×."]
        out += ["", "<details><summary>Per question (first pass)</summary>", "",
                "| id | expected route | agentic route | agentic outcome | hit naive / agentic | ms naive / agentic |",
                "|---|---|---|---|---|---:|"]
        first = {(x["id"], x["variant"]): x for x in var["rows"] if x["repeat"] == 0}
        for qid in dict.fromkeys(x["id"] for x in var["rows"]):
            a_row, n_row = first.get((qid, "agentic")), first.get((qid, "naive"))
            if not a_row or not n_row:
                continue
            outcome = "abstained" if a_row["abstained"] else ("partial" if a_row["partial"] else "answered")
            outcome += f" ({a_row['stop_reason']})" if a_row["stop_reason"] else ""
            mark = "" if a_row["route"] == a_row["expected_route"] else " ✗"
            out.append(f"| {qid} | {a_row['expected_route']} | {a_row['route']}{mark} | {outcome} | "
                       f"{fmt(n_row['hit'])} / {fmt(a_row['hit'])} | {n_row['wall_ms']:,.0f} / {a_row['wall_ms']:,.0f} |")
        out += ["", "</details>"]
    ba = result.get("before_after")
    if ba:
        out += ["", f"### (c) Offline engine before (`{ba['baseline_rev']}`) vs after, same index, "
                f"{meta['n_questions']} sample questions × {meta['repeat']}", "",
                "| variant | before ms mean | after ms mean | after ÷ before | before p95 | after p95 "
                "| key fact hit before / after |", "|---|---:|---:|---:|---:|---:|---:|"]
        for v in ("agentic", "naive"):
            b, a = ba[f"before_{v}"], ba[f"after_{v}"]
            out.append(f"| {v} | {fmt(b['wall_ms_mean'])} | {fmt(a['wall_ms_mean'])} | "
                       f"{fmt(ba[f'after_over_before_{v}'], 2)}× | {fmt(b['wall_ms_p95'])} | {fmt(a['wall_ms_p95'])} | "
                       f"{fmt(b['key_fact_hit_rate_covered'], 2)} / {fmt(a['key_fact_hit_rate_covered'], 2)} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=Path, default=REPO / "sample_docs", help="folder of sample documents")
    ap.add_argument("--questions", type=Path, default=REPO / "sample_docs" / "questions.jsonl")
    ap.add_argument("--synthetic-chunks", type=int, default=300,
                    help="size of the synthetic corpus in chunks (0: skip it)")
    ap.add_argument("--limit", type=int, default=0, help="use only the first N questions (quick checks)")
    ap.add_argument("--repeat", type=int, default=1, help="passes over the question set per variant")
    ap.add_argument("--rounds", type=int, default=3,
                    help="(ingest, raw embed) pairs on the sample documents, each ingest into a fresh data directory")
    ap.add_argument("--synthetic-rounds", type=int, default=1, help="the same for the synthetic corpus")
    ap.add_argument("--engine", default="offline", help="decision engine for (b): offline (default) or llm")
    ap.add_argument("--skip-variants", action="store_true", help="only measure ingest")
    ap.add_argument("--baseline-rev", default=DEFAULT_BASELINE_REV,
                    help="commit whose rag/engines/offline.py is the 'before' engine of (c); '' skips (c)")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    ap.add_argument("--keep", action="store_true", help="keep the temporary data directory")
    args = ap.parse_args(argv)

    started = datetime.now(timezone.utc)
    work = Path(tempfile.mkdtemp(prefix="rag-bench-"))
    kbs: list[KnowledgeBase] = []
    try:
        files = corpus_files(args.docs)
        if not files:
            print(f"no loadable documents in {args.docs}", file=sys.stderr)
            return 2
        print(f"(a) ingest: {len(files)} sample documents from {args.docs}")
        sample_row, kb, settings = bench_ingest("sample_docs", files, work / "kb_sample", args.engine, args.rounds)
        kbs.append(kb)
        ingest_rows = [sample_row]
        if args.synthetic_chunks > 0:
            syn_files, expected = make_synthetic_corpus(files, work / "synthetic", args.synthetic_chunks,
                                                        settings.chunk_size, settings.chunk_overlap)
            print(f"(a) ingest: synthetic corpus, {len(syn_files)} files, ~{expected} chunks")
            syn_row, syn_kb, _ = bench_ingest(f"synthetic (~{args.synthetic_chunks} chunks)", syn_files,
                                              work / "kb_synthetic", args.engine, args.synthetic_rounds)
            kbs.append(syn_kb)
            ingest_rows.append(syn_row)

        # the tables (sample_docs/tables: .csv / .xlsx / .sqlite) hold no chunks, so (a) leaves them out; the questions
        # of (b) and (c) need them (the sql route), as `rag eval --ingest sample_docs` has them
        tables = table_files(args.docs)
        if tables and not args.skip_variants:
            kb.ingest_paths(tables)
        variants = None
        questions = load_question_rows(args.questions)
        if args.limit:
            questions = questions[: args.limit]
        if not args.skip_variants:
            print(f"(b) agentic vs naive: {len(questions)} questions x {args.repeat}, engine {args.engine}")
            variants = bench_variants(questions, kb, settings, get_engine(settings, args.engine), args.repeat)
        before_after = None
        if args.baseline_rev and not args.skip_variants:
            print(f"(c) offline engine before ({args.baseline_rev}) vs after: {len(questions)} questions x {args.repeat}")
            before_after = bench_before_after(questions, kb, settings, args.baseline_rev, args.repeat)

        result = {
            "meta": {
                "date": started.strftime("%Y-%m-%d %H:%M UTC"), "commit": git_commit(), "machine": machine(),
                "engine": args.engine, "embedder": sample_row["embedder"], "repeat": args.repeat,
                "n_questions": len(questions),
                "command": "python bench/bench_engine.py " + " ".join(argv if argv is not None else sys.argv[1:]),
                "settings": {k: v for k, v in settings.public().items() if k != "data_dir"},
            },
            "ingest": ingest_rows,
            "variants": variants,
            "before_after": before_after,
        }
        md = markdown(result)
        args.out.mkdir(parents=True, exist_ok=True)
        stamp = started.strftime("%Y%m%dT%H%M%SZ")
        (args.out / f"bench_engine-{stamp}.json").write_text(json.dumps(result, ensure_ascii=False, indent=2,
                                                                         default=str), encoding="utf-8")
        (args.out / f"bench_engine-{stamp}.md").write_text(md, encoding="utf-8")
        print()
        print(md)
        print(f"results: {args.out / f'bench_engine-{stamp}.json'}")
        return 0
    finally:
        for kb in kbs:
            try:
                kb.close()
            except Exception:
                pass
        if args.keep:
            print(f"data kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
