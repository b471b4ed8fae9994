"""`python -m rag eval`: run a question set with each variant on the knowledge base and report the metrics.

    python -m rag eval QUESTIONS.jsonl [--variants naive,agentic] [--json] [--out DIR] [--data-dir DIR]
                                       [--ingest PATH ...] [--fresh-kb] [--relations FILE] [--gate SPEC ...] [--ragas]
    python -m rag eval --peer-suite PATH [--variants ...] [--json] [--out DIR] [--data-dir DIR]
    python -m rag eval convert-peer PATH --out DIR
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

from rag.eval.metrics import METRIC_LABELS, aggregate
from rag.types import RagError

DEFAULT_VARIANTS = "naive,agentic"
EXIT_GATE_MISSED = 1
GATE_HELP = """gates (--gate SPEC, repeatable; quote each SPEC in the shell):
  [VARIANT.]METRIC>=X | [VARIANT.]METRIC<=X
  [VARIANT.]METRIC>=[VARIANT.]METRIC[+|-X]     relative to another figure of the same report
  relations.precision|recall|f1|cooccurrence_violations>=X   (with --relations)
  METRIC: a metric key of the report (routing_accuracy, key_fact_hit_rate, false_abstention_rate,
  silent_failure_rate, abstention_rate, context_precision, wall_ms_mean, ...); '_rate'/'_accuracy' may be left out.
  Without VARIANT the gate applies to every evaluated variant. A metric that is null for the set misses.
  examples:
    --gate 'agentic.key_fact_hit>=0.85' --gate 'agentic.key_fact_hit>=naive.key_fact_hit+0.15'
    --gate 'agentic.false_abstention<=0.10' --gate 'agentic.silent_failure<=0.05' --gate 'agentic.routing>=0.90'
  Each gate prints one line (gate ok / gate MISS ...; on stderr with --json) and the last line sums them up.
exit status: 0 ok · 1 a gate missed · 2 bad input (question set, gate, variant, setting)
"""
TABLE_METRICS: tuple[str, ...] = tuple(k for k in METRIC_LABELS)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m rag eval",
        description="Run every question of a JSONL question set with each variant on the current knowledge base; "
                    "every run is stored, so each row links to its trace (python -m rag runs show RUN_ID).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=GATE_HELP + "\nAlso: 'python -m rag eval convert-peer PATH --out DIR' writes a peer suite as documents + "
               "JSONL.")
    p.add_argument("questions", nargs="?", help="question set (.jsonl), e.g. sample_docs/questions.jsonl")
    p.add_argument("--peer-suite", metavar="PATH",
                   help="a folder with knowledge_base.json + manual_testset.json: ingest its documents, then "
                        "evaluate its questions (default data dir: DATA_DIR/peer/<suite name>, kept apart from "
                        "your knowledge base)")
    p.add_argument("--variants", default=DEFAULT_VARIANTS, help=f"comma-separated (default {DEFAULT_VARIANTS})")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object instead of tables")
    p.add_argument("--out", metavar="DIR", help="also write report.json, metrics.csv and questions.csv here")
    p.add_argument("--data-dir", metavar="DIR", help="data directory (default $RAG_DATA_DIR or ./data)")
    p.add_argument("--ingest", metavar="PATH", action="append", default=[],
                   help="ingest these files/folders first (re-ingesting unchanged files is a no-op)")
    p.add_argument("--threshold", type=float, help="context-quality threshold (default 0.6)")
    p.add_argument("--max-attempts", type=int, help="agent retrieval budget (default 2)")
    p.add_argument("--top-k", type=int, help="documents per retrieval (default 4)")
    p.add_argument("--fresh-kb", action="store_true",
                   help="evaluate on a fresh knowledge base: a new temporary data dir (removed at the end) or the "
                        "empty/new folder given by --data-dir (kept), with the embedded stores (local Chroma, "
                        "networkx graph) whatever CHROMA_HOST / NEO4J_URI say; needs --ingest")
    p.add_argument("--relations", metavar="FILE",
                   help="hand-labelled relations (relations.jsonl): print relation-extraction precision/recall of "
                        "the knowledge base's graph on the labelled documents")
    p.add_argument("--gate", metavar="SPEC", action="append", default=[],
                   help="fail (exit 1) unless SPEC holds, e.g. 'agentic.key_fact_hit>=0.85'; repeatable; syntax below")
    p.add_argument("--ragas", action="store_true",
                   help="add LLM-judged RAGAS faithfulness / answer relevancy (needs an LLM and the ragas package)")
    return p


def build_convert_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m rag eval convert-peer",
                                description="Write a peer suite as DIR/docs/<doc id>.md + DIR/questions.jsonl.")
    p.add_argument("path", help="folder with knowledge_base.json and manual_testset.json")
    p.add_argument("--out", metavar="DIR", required=True, help="output folder")
    return p


# ---- text tables ----------------------------------------------------------------------------------------------------
def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
    return str(value)


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def format_report(report: dict[str, Any]) -> str:
    """The metrics table (one column per variant) and the per-question table; '-' marks 'does not apply'."""
    variants = list(report["variants"])
    keys = list(TABLE_METRICS) + [k for k in ("ragas_faithfulness", "ragas_answer_relevancy")
                                  if any(k in m for m in report["variants"].values())]
    metric_rows = [[METRIC_LABELS.get(k, k + " (LLM-judged)"), *(_fmt(report["variants"][v].get(k)) for v in variants)]
                   for k in keys]
    out = [f"question set: {report['question_set']} ({report['n_questions']} questions) · "
           f"engine: {report['engine'].get('name', '?')} · {report['wall_s']} s",
           "", _table(["metric", *variants], metric_rows), ""]
    family = report.get("family") or []
    if family:  # issue 10: the seed-001-style table (declared minimum calls and failures, measured rates beside)
        codes = [f"F{i}" for i in range(1, 8)]
        out += ["judging-RAG family (min calls counted from the code path; F-columns: share of runs labelled, observed):",
                _table(["variant", "min model calls (N docs)", "prevents", "leaves open", "calls", *codes],
                       [[r["variant"], r["min_calls (code path, N docs)"], r["prevents"], r["leaves open"],
                         _fmt(r["model calls (mean)"]), *(_fmt(r.get(f"{c} observed")) for c in codes)]
                        for r in family]), ""]
    q_rows = []
    for r in report["questions"]:
        route = r["route"] + ("" if r["route_correct"] in (None, True) else f" (want {r['expected_route']})")
        q_rows.append([r["id"], r["variant"], r["kind"] or "-", route, _fmt(r["flagged"]), _fmt(r["hit"]),
                       _fmt(r["silent_failure"]), _fmt(r["llm_calls"]), f"{r['wall_ms']:.0f}", r["run_id"]])
    out.append(_table(["id", "variant", "kind", "route", "flagged", "hit", "silent", "calls", "ms", "run_id"], q_rows))
    out.append("")
    out.append("flagged = abstained or partial answer · silent = answered confidently but wrong/uncovered · "
               "open a run: python -m rag runs show RUN_ID")
    return "\n".join(out)


# ---- commands -------------------------------------------------------------------------------------------------------
def _convert(argv: list[str], out: TextIO) -> int:
    from rag.eval.peer import load_peer_suite, write_peer_suite

    args = build_convert_parser().parse_args(argv)
    suite = load_peer_suite(args.path)
    docs_dir, jsonl = write_peer_suite(suite, args.out)
    print(f"wrote {len(suite.documents)} documents to {docs_dir} and {len(suite.questions)} questions to {jsonl}",
          file=out)
    print(f"next: python -m rag ingest {docs_dir} && python -m rag eval {jsonl}", file=out)
    return 0


def _progress_printer(err: TextIO):
    if not getattr(err, "isatty", lambda: False)():
        return None

    def show(done: int, total: int, label: str) -> None:
        err.write(f"\r[{done}/{total}] {label[:60]:<60}")
        if done == total:
            err.write("\n")
        err.flush()

    return show


def run_eval(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from rag.config import Settings
    from rag.eval.gates import parse_gates
    from rag.eval.questions import load_questions

    if bool(args.questions) == bool(args.peer_suite):
        raise RagError("pass a question set (QUESTIONS.jsonl) or --peer-suite PATH, not both and not neither")
    # read every input that can be wrong before spending an evaluation on it
    variant_names = [v.strip() for v in args.variants.split(",") if v.strip()]
    gates = parse_gates(args.gate, aggregate([]).keys(), variant_names)
    if any(g.variant == "relations" or g.ref_variant == "relations" for g in gates) and not args.relations:
        raise RagError("a relations.* gate needs --relations FILE")
    labels = None
    if args.relations:
        from rag.eval.relations import load_relation_labels

        labels = load_relation_labels(args.relations)
    overrides = {k: v for k, v in (("threshold", args.threshold), ("max_attempts", args.max_attempts),
                                   ("top_k", args.top_k)) if v is not None}
    fresh_tmp: str | None = None
    if args.fresh_kb:
        if not args.ingest and not args.peer_suite:
            raise RagError("--fresh-kb starts from an empty knowledge base: add --ingest PATH (the corpus to evaluate)")
        if args.data_dir and Path(args.data_dir).exists() and any(Path(args.data_dir).iterdir()):
            raise RagError(f"--fresh-kb: {args.data_dir} is not empty; give a new or empty folder, or leave out "
                           "--data-dir for a temporary one")
        overrides.update(chroma_host=None, neo4j_uri=None)  # embedded stores: nothing shared, nothing left behind
    suite = None
    data_dir = args.data_dir
    if args.peer_suite:
        from rag.eval.peer import load_peer_suite

        suite = load_peer_suite(args.peer_suite)
        if data_dir is None and not args.fresh_kb:
            data_dir = Settings.from_env().data_dir / "peer" / suite.name
            print(f"peer suite '{suite.name}': using its own data dir {data_dir} "
                  f"(inspect it with RAG_DATA_DIR={data_dir})", file=err)
        questions = suite.questions
    else:
        questions = load_questions(args.questions)
    if args.fresh_kb and data_dir is None:
        fresh_tmp = data_dir = tempfile.mkdtemp(prefix="rag-eval-")
        print(f"fresh knowledge base in {data_dir} (removed at the end; pass --data-dir NEW_DIR to keep it)",
              file=err)
    try:
        return _run_eval_in(args, out, err, questions, suite, data_dir, overrides, gates, labels)
    finally:
        if fresh_tmp:
            import shutil

            shutil.rmtree(fresh_tmp, ignore_errors=True)


def _run_eval_in(args: argparse.Namespace, out: TextIO, err: TextIO, questions: Any, suite: Any, data_dir: Any,
                 overrides: dict[str, Any], gates: list[Any], labels: Any) -> int:
    from rag.config import Settings
    from rag.engines import get_engine
    from rag.eval.breakdown import by_tag, format_by_tag
    from rag.eval.gates import check_gates, summary_line
    from rag.eval.runner import evaluate, report_json, write_report
    from rag.kb import KnowledgeBase
    from rag.runstore import RunStore

    settings = Settings.from_env(data_dir_override=data_dir, **overrides)
    if args.ragas:  # say what is missing before spending a whole evaluation
        from rag.eval.ragas_llm import check_available

        check_available(settings)
    kb = KnowledgeBase(settings)
    try:
        to_ingest = [Path(p) for p in args.ingest]
        missing = [str(p) for p in to_ingest if not p.exists()]
        if missing:
            raise RagError(f"--ingest: not found: {', '.join(missing)}")
        with tempfile.TemporaryDirectory(prefix="rag-peer-") as tmp:
            if suite is not None:
                from rag.eval.peer import write_peer_suite

                docs_dir, _ = write_peer_suite(suite, tmp)
                to_ingest.append(docs_dir)
            if to_ingest:
                results = kb.ingest_paths(to_ingest)
                bad = [r for r in results if r.status == "error"]
                for r in bad:
                    print(f"ingest: {r.source}: {r.error}", file=err)
                print(f"ingested {len(results) - len(bad)} file(s)" + (f", {len(bad)} failed" if bad else ""),
                      file=err)
        counts = kb.counts()
        if not counts.get("documents"):
            print("warning: the knowledge base is empty, so every retrieval finds nothing; ingest documents first "
                  "(python -m rag ingest sample_docs, or --ingest sample_docs)", file=err)
        engine = get_engine(settings)
        store = RunStore(settings.data_dir)
        report = evaluate(questions, args.variants.split(","), kb, engine, settings, store,
                          progress=_progress_printer(err))
        report["data_dir"] = str(settings.data_dir)
        report["kb_counts"] = counts
        if args.fresh_kb:
            report["fresh_kb"] = True
        breakdown = by_tag(report, questions)
        if breakdown:
            report["by_tag"] = breakdown
        if labels is not None:
            from rag.eval.relations import graph_relations, score_relations

            report["relations"] = score_relations(labels, graph_relations(kb.graph))
            report["relations"]["labels"] = str(args.relations)
        if args.ragas:
            from rag.eval.ragas_llm import add_llm_judged_metrics

            add_llm_judged_metrics(report, settings, store)
    finally:
        close = getattr(kb, "close", None)
        if close:
            close()
    results = check_gates(gates, report)
    if results:
        report["gates"] = [r.to_dict() for r in results]
    if args.out:
        paths = write_report(report, args.out)
        print("wrote " + ", ".join(str(p) for p in paths), file=err)
    if args.json:
        print(json.dumps(json.loads(report_json(report)), ensure_ascii=False), file=out)
    else:
        print(format_report(report), file=out)
        if report.get("by_tag"):
            print("\n" + format_by_tag(report["by_tag"], list(report["variants"])), file=out)
        if report.get("relations"):
            from rag.eval.relations import format_relations

            print("\n" + format_relations(report["relations"]), file=out)
    if results:
        gate_out = err if args.json else out
        print("", file=gate_out)
        for r in results:
            print(r.line, file=gate_out)
        print(summary_line(results), file=gate_out)
        if not all(r.passed for r in results):
            return EXIT_GATE_MISSED
    return 0


def cli_main(argv: list[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Entry point for `python -m rag eval ...`; returns the exit status (2 for a usage or input error)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    out, err = out or sys.stdout, err or sys.stderr
    try:
        if argv[:1] == ["convert-peer"]:
            return _convert(argv[1:], out)
        args = build_parser().parse_args(argv)
        return run_eval(args, out, err)
    except RagError as exc:
        print(f"error: {exc}", file=err)
        return 2
    except ValueError as exc:  # a setting out of range (Settings rejects it with the value)
        print(f"error: {exc}", file=err)
        return 2


if __name__ == "__main__":
    raise SystemExit(cli_main())
