"""`python -m rag ...`: a thin shell over the library.

    python -m rag ingest PATH...            files or folders; one line per file
    python -m rag docs                      list documents
    python -m rag delete DOC_ID             remove one document (chunks, vectors, graph facts)
    python -m rag reset [--yes]             remove everything
    python -m rag repair                    remove what an interrupted ingest or delete left in the stores
    python -m rag ask "QUESTION" [--variant NAME] [--json] [--threshold X] [--max-attempts N] [--top-k K]
    python -m rag compare "QUESTION" --variants a,b,c [--json]   one question through several variants side by side
    python -m rag runs list [--json] | runs show RUN_ID [--json] | runs delete RUN_ID
    python -m rag status                    backends, engine, counts
    python -m rag neo4j ... / eval ...      (their own help: python -m rag neo4j --help)

``--data-dir DIR`` works before or after the subcommand (env ``RAG_DATA_DIR``; default ``./data``).
User errors print one plain line saying what to do (exit 1 or 2), never a traceback. With ``--json``
stdout carries exactly one JSON object; logs and library noise go to stderr.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any, Iterator, TextIO

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def variant_choices() -> list[str]:
    """argparse choices for --variant: the registered variants (rag.variants.registry), read when the parser is built."""
    from rag.variants import VARIANTS

    return list(VARIANTS)


class CliError(Exception):
    """A user error: print the message, exit with ``code``."""

    def __init__(self, message: str, code: int = EXIT_FAILED) -> None:
        super().__init__(message)
        self.code = code


# ---- parser ---------------------------------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    # SUPPRESS: a --data-dir given after the subcommand must not be reset by the subparser's default
    common.add_argument("--data-dir", metavar="DIR", default=argparse.SUPPRESS,
                        help="data directory (default: $RAG_DATA_DIR or ./data)")

    parser = argparse.ArgumentParser(prog="python -m rag", parents=[common],
                                     description="Agentic RAG demo and inspector: ingest documents, ask questions, "
                                                 "inspect every step of a run.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("ingest", parents=[common], help="add files or folders to the knowledge base")
    p.add_argument("paths", nargs="+", metavar="PATH", help=".txt .md .pdf .docx .html files, or folders")

    sub.add_parser("docs", parents=[common], help="list the documents in the knowledge base")

    p = sub.add_parser("delete", parents=[common], help="remove one document (its chunks, vectors and graph facts)")
    p.add_argument("doc_id", metavar="DOC_ID", help="document id (see: python -m rag docs); a unique prefix works")

    p = sub.add_parser("reset", parents=[common], help="remove every document, vector and graph fact")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")

    sub.add_parser("repair", parents=[common],
                   help="remove chunks, tokens and graph facts of documents that were never committed "
                        "(an ingest or delete interrupted by a crash)")

    p = sub.add_parser("ask", parents=[common], help="answer a question and record the run")
    p.add_argument("question", metavar="QUESTION")
    p.add_argument("--variant", default="agentic", choices=variant_choices(), help="agent variant (default agentic)")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object (the run summary)")
    p.add_argument("--threshold", type=float, help="context-quality threshold 0..1 (default 0.6)")
    p.add_argument("--max-attempts", type=int, help="retrieval attempts at most (default 2)")
    p.add_argument("--top-k", type=int, help="documents per retrieval (default 4)")
    p.add_argument("--stream", action="store_true", help="print the answer as the model writes it (llm engine)")
    p.add_argument("--no-cache", action="store_true", help="compute a fresh answer even when the answer cache has "
                                                           "this question (llm engine; RAG_ANSWER_CACHE)")

    p = sub.add_parser("compare", parents=[common], help="one question through several variants, side by side")
    p.add_argument("question", metavar="QUESTION")
    p.add_argument("--variants", default="all", help="comma-separated variant names, or 'all' (default); "
                                                     "registered: " + ", ".join(variant_choices()))
    p.add_argument("--json", action="store_true", help="print exactly one JSON object (every run's summary)")
    p.add_argument("--threshold", type=float, help="context-quality threshold 0..1 (default 0.6)")
    p.add_argument("--max-attempts", type=int, help="retrieval attempts at most (default 2)")
    p.add_argument("--top-k", type=int, help="documents per retrieval (default 4)")

    runs = sub.add_parser("runs", parents=[common], help="list, show or delete recorded runs")
    runs_sub = runs.add_subparsers(dest="runs_command", metavar="ACTION")
    p = runs_sub.add_parser("list", parents=[common], help="recorded runs, newest first")
    p.add_argument("--json", action="store_true", help="print one JSON array")
    p.add_argument("--limit", type=int, default=20, help="how many (default 20)")
    p.add_argument("--search", help="only runs whose question or answer contains this text")
    p.add_argument("--variant", help="only runs of this variant")
    p = runs_sub.add_parser("show", parents=[common], help="one run, step by step")
    p.add_argument("run_id", metavar="RUN_ID", help="run id (a unique prefix of 4+ characters works)")
    p.add_argument("--json", action="store_true", help="print the full trace as JSON")
    p = runs_sub.add_parser("delete", parents=[common], help="delete one recorded run")
    p.add_argument("run_id", metavar="RUN_ID")
    p = runs_sub.add_parser("fork", parents=[common],
                            help="what-if replay: continue a run from one step with one decision edited")
    p.add_argument("run_id", metavar="RUN_ID", help="run id (a unique prefix of 4+ characters works)")
    p.add_argument("--step", type=int, required=True, help="the step to edit (its number in: runs show RUN_ID)")
    p.add_argument("--set", dest="edit", required=True, metavar="EDIT",
                   help="grade[I]=correct|ambiguous|incorrect, quality=0.8, threshold=0.4, route=graph, query=TEXT")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object (the fork and its parent)")
    p = runs_sub.add_parser("export", parents=[common],
                            help="one self-contained HTML handout of a run (a fork: beside its parent; several runs: "
                                 "side by side)")
    p.add_argument("run_ids", nargs="+", metavar="RUN_ID", help="run id (a unique prefix of 4+ characters works)")
    p.add_argument("-o", "--output", metavar="FILE", help="where to write it (default handout-RUN_ID.html)")

    p = sub.add_parser("lessons", parents=[common], help="failure lessons F1-F7: list them, or run one offline")
    p.add_argument("lesson_id", nargs="?", metavar="LESSON_ID", help="run this lesson (ids: python -m rag lessons)")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object (or array when listing)")
    p.add_argument("-o", "--output", metavar="FILE", help="also write the lesson as an HTML handout")

    sub.add_parser("status", parents=[common], help="backends, decision engine, counts")

    for name, text in (("neo4j", "a local Neo4j: start | status | stop | build"),
                       ("eval", "evaluate variants on a question set")):
        p = sub.add_parser(name, parents=[common], help=text, add_help=False)
        p.add_argument("rest", nargs=argparse.REMAINDER)
    return parser


# ---- entry point ----------------------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _quiet_libraries()
    parser = build_parser()
    # neo4j / eval parse their own arguments: split there so their flags never reach our parser
    split = _delegated_split(argv)
    args = parser.parse_args(argv[: split + 1] if split is not None else argv)
    if split is not None:
        args.rest = argv[split + 1:]
    if getattr(args, "data_dir", None):
        os.environ["RAG_DATA_DIR"] = str(Path(args.data_dir).expanduser())
    if not args.command:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    if args.command == "runs" and not args.runs_command:
        print("error: say what to do with runs: python -m rag runs list | show RUN_ID | delete RUN_ID",
              file=sys.stderr)
        return EXIT_USAGE
    handler = COMMANDS[args.command]
    try:
        return handler(args)
    except CliError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a failure we did not foresee: one line, and where to look
        from rag.types import RagError

        if isinstance(exc, RagError):
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_FAILED
        logging.getLogger("rag.cli").debug("unexpected error", exc_info=True)
        print(f"error: {type(exc).__name__}: {exc} (run with RAG_DEBUG=1 for the traceback)", file=sys.stderr)
        if os.environ.get("RAG_DEBUG"):
            raise
        return EXIT_FAILED


def _delegated_split(argv: list[str]) -> int | None:
    """Index of the ``neo4j`` / ``eval`` subcommand word in argv, if that is the subcommand."""
    skip = False
    for i, word in enumerate(argv):
        if skip:
            skip = False
            continue
        if word == "--data-dir":
            skip = True
            continue
        if word.startswith("-"):
            continue
        return i if word in ("neo4j", "eval") else None
    return None


def _quiet_libraries() -> None:
    """Library chatter goes to stderr, and only warnings: stdout is for results (and --json)."""
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    debug = bool(os.environ.get("RAG_DEBUG"))
    logging.basicConfig(stream=sys.stderr, level=logging.DEBUG if debug else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if not debug:  # some libraries set their own loggers to DEBUG on import: drop that below the handler
        for handler in logging.getLogger().handlers:
            handler.setLevel(logging.WARNING)


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[TextIO]:
    """While the engine runs, anything written to stdout (Python or C level) goes to stderr.
    Yields a stream onto the real stdout for the one result we print."""
    sys.stdout.flush()
    saved_fd = os.dup(1)
    real = os.fdopen(os.dup(saved_fd), "w", encoding="utf-8", closefd=True)
    os.dup2(2, 1)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield real
    finally:
        sys.stderr.flush()
        os.dup2(saved_fd, 1)
        os.close(saved_fd)
        real.flush()
        real.close()


# ---- helpers --------------------------------------------------------------------------------------------------------

def _settings(**overrides: Any):
    from rag.config import Settings

    try:
        return Settings.from_env(**{k: v for k, v in overrides.items() if v is not None})
    except ValueError as exc:  # Settings says what was wrong, with the value
        raise CliError(f"{exc}", EXIT_USAGE) from None


def _open_kb(settings, engine=None):
    from rag.kb import KnowledgeBase

    return KnowledgeBase(settings, engine=engine)


def _store(settings):
    from rag.runstore import RunStore

    return RunStore(settings.data_dir)


def _print_json(data: Any, out: TextIO | None = None) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2, default=str), file=out or sys.stdout)


def _table(headers: list[str], rows: list[list[Any]]) -> str:
    cells = [[str(c) for c in row] for row in [headers, *rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _one_line(text: str, limit: int = 70) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---- commands -------------------------------------------------------------------------------------------------------

def cmd_ingest(args: argparse.Namespace) -> int:
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        raise CliError(f"no such file or folder: {', '.join(missing)} (check the path and try again)", EXIT_USAGE)
    settings = _settings()
    kb = _open_kb(settings)
    try:
        kb.check_embedder()
        with stdout_to_stderr() as out:
            results = kb.ingest_paths([Path(p) for p in args.paths],
                                      progress=lambda name, stage, fraction: None)
            if not results:
                raise CliError("no supported files found (.txt .md .pdf .docx .html)", EXIT_FAILED)
            for r in results:
                if r.status == "error":
                    print(f"error      {r.source}: {r.error}", file=out)
                else:
                    print(f"{r.status:<10} {r.source}  ({r.n_chunks} chunks, {r.n_entities} entities, "
                          f"{r.n_relations} relations, {r.duration_ms:.0f} ms)  {r.doc_id[:12]}", file=out)
                    if getattr(r, "note", None):
                        print(f"           {r.note}", file=out)
            failed = sum(1 for r in results if r.status == "error")
            summary = f"{len(results) - failed} of {len(results)} file(s) ingested into {settings.data_dir}"
            print(summary + (f"; {failed} failed" if failed else ""), file=out)
    finally:
        kb.close()
    return EXIT_FAILED if failed else EXIT_OK


def cmd_docs(args: argparse.Namespace) -> int:
    kb = _open_kb(_settings())
    try:
        docs = kb.documents()
    finally:
        kb.close()
    if not docs:
        print("The knowledge base is empty. Add documents: python -m rag ingest PATH")
        return EXIT_OK
    print(_table(["doc id", "source", "chunks", "chars", "ingested at"],
                 [[d.doc_id[:12], d.source, d.n_chunks, d.n_chars, d.ingested_at[:19]] for d in docs]))
    return EXIT_OK


def _resolve_doc_id(kb, doc_id: str) -> str:
    ids = [d.doc_id for d in kb.documents()]
    if doc_id in ids:
        return doc_id
    matches = [i for i in ids if i.startswith(doc_id)] if len(doc_id) >= 4 else []
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise CliError(f"{doc_id!r} matches {len(matches)} documents: give more characters of the id", EXIT_USAGE)
    raise CliError(f"no document with id {doc_id!r} (list them: python -m rag docs)", EXIT_FAILED)


def cmd_delete(args: argparse.Namespace) -> int:
    kb = _open_kb(_settings())
    try:
        doc_id = _resolve_doc_id(kb, args.doc_id)
        source = next((d.source for d in kb.documents() if d.doc_id == doc_id), doc_id)
        kb.delete(doc_id)
    finally:
        kb.close()
    print(f"deleted {source} ({doc_id[:12]})")
    return EXIT_OK


def cmd_reset(args: argparse.Namespace) -> int:
    settings = _settings()
    if not args.yes:
        if not sys.stdin.isatty():
            raise CliError("reset removes every document, vector and graph fact: add --yes to confirm", EXIT_USAGE)
        reply = input(f"Remove every document, vector and graph fact in {settings.data_dir}? [y/N] ")
        if reply.strip().lower() not in ("y", "yes"):
            print("nothing removed")
            return EXIT_OK
    kb = _open_kb(settings)
    try:
        with stdout_to_stderr():
            kb.reset()
    finally:
        kb.close()
    print(f"the knowledge base in {settings.data_dir} is empty now (recorded runs are kept)")
    return EXIT_OK


def cmd_repair(args: argparse.Namespace) -> int:
    settings = _settings()
    kb = _open_kb(settings)
    try:
        with stdout_to_stderr() as out:
            # the knowledge base already finished interrupted writes when it opened; this also sweeps every store
            reports = [r for r in (kb.repaired_at_open, kb.repair(full=True)) if r is not None and r.changed]
            summary = "; ".join(r.summary() for r in reports) or kb.repair().summary()
            print(f"{summary} ({settings.data_dir})", file=out)
    finally:
        kb.close()
    return EXIT_OK


def cmd_ask(args: argparse.Namespace) -> int:
    from rag.engines import get_engine

    settings = _settings(threshold=args.threshold, max_attempts=args.max_attempts, top_k=args.top_k)
    with stdout_to_stderr() as out:
        engine = get_engine(settings)
        kb = _open_kb(settings, engine=engine)
        try:
            kb.check_embedder()
            if not args.json and not kb.documents():
                print("note: the knowledge base is empty (add documents: python -m rag ingest PATH)",
                      file=sys.stderr)
            from rag.cache import ask as ask_cached
            from rag.streaming import stream_tokens

            sink = (lambda piece: (out.write(piece), out.flush())) if args.stream and not args.json else None
            with stream_tokens(sink):
                run = ask_cached(args.question, kb=kb, engine=engine, settings=settings, variant=args.variant,
                                 store=_store(settings), bypass=args.no_cache)
            if sink is not None and run.model_calls:
                print("\n", file=out)
            if run.cache.get("hit") and not args.json:
                print(f"(answer cache: same question as run {run.cache['original_run_id']}, similarity "
                      f"{run.cache['similarity']:.2f}; 0 model calls; --no-cache to ask again)", file=out)
        finally:
            kb.close()
        if args.json:
            from rag.compare import compare_row

            _print_json(compare_row(run), out)
        else:
            print(_format_run(run), file=out)
    return EXIT_FAILED if run.error else EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    from rag.compare import compare_row, compare_variants, parse_variants
    from rag.engines import get_engine

    settings = _settings(threshold=args.threshold, max_attempts=args.max_attempts, top_k=args.top_k)
    variants = parse_variants(args.variants)
    with stdout_to_stderr() as out:
        engine = get_engine(settings)
        kb = _open_kb(settings, engine=engine)
        try:
            kb.check_embedder()
            runs = compare_variants(args.question, variants, kb, engine, settings, store=_store(settings))
        finally:
            kb.close()
        rows = [compare_row(r) for r in runs]
        if args.json:
            _print_json({"question": args.question, "variants": variants, "engine": runs[0].engine if runs else {},
                         "runs": rows}, out)
        else:
            print(_table(["variant", "calls", "tokens", "ms", "attempts", "stop", "F-labels", "path"],
                         [[r["variant"], r["llm_calls"], r["tokens"], f"{r['wall_ms']:.0f}", r["attempts"],
                           r["stop_reason"] or "-", r["failure_summary"], " → ".join(r["path"])] for r in rows]),
                  file=out)
            for r in rows:
                print(f"\n== {r['variant']} ({r['label']}) · run {r['run_id']}", file=out)
                print(r["answer"], file=out)
                for i, c in enumerate(r["citations"], 1):
                    print(f"  [{i}] {c['source']}: {_one_line(c['text'], 90)}", file=out)
                for f in r["failures"]:
                    print(f"  {f['code']} {f['level']}: {f['reason']} (steps {', '.join(map(str, f['steps']))})",
                          file=out)
    return EXIT_FAILED if any(r.error for r in runs) else EXIT_OK


def _format_run(run, steps: bool = False) -> str:
    lines = [run.answer, ""]
    if run.citations:
        lines.append("Sources:")
        lines += [f"  [{i + 1}] {c.source}" + (f" #{c.chunk_index}" if c.chunk_index is not None else "")
                  + f": {_one_line(c.text, 90)}" for i, c in enumerate(run.citations)]
        lines.append("")
    flags = [f for f, on in (("abstained", run.abstained), ("partial", run.partial)) if on]
    lines.append(f"route {run.route or '-'} · stop {run.stop_reason or '-'}"
                 + (f" · {', '.join(flags)}" if flags else "")
                 + f" · {len(run.attempts)} attempt(s) · quality {[round(q, 2) for q in run.quality_scores]}"
                 + f" · {run.llm_calls} model call(s) · {run.wall_ms:.0f} ms")
    lines.append("path: " + " → ".join(run.path))
    if not run.error:
        from rag.failures import label_run, summary

        lines.append(f"failure labels (F1–F7, seed 001): {summary(label_run(run))}")
    for a in run.attempts:
        lines.append(f"  attempt {a.number}: {a.strategy:<6} quality {a.quality if a.quality is not None else '-'}"
                     f" / {a.threshold}  {a.n_documents} docs, {a.n_correct} correct  [{a.status}]"
                     f"  query: {_one_line(a.query, 50)}" + (f"  ({_one_line(a.note, 60)})" if a.note else ""))
    if run.error:
        lines.append(f"error: {run.error}")
    if steps:
        lines += ["", "steps:"]
        for s in run.steps:
            mark = "" if s.status == "ok" else f" [{s.status}]"
            lines.append(f"  {s.index:>2}. {s.node:<17} {s.duration_ms:>8.1f} ms  {_one_line(s.decision, 30)}{mark}"
                         f"  — {_one_line(s.reason, 90)}")
            for d in s.documents:
                if d.grade is not None or s.node.startswith("retrieve_") and run.variant == "naive":
                    grade = f"{d.grade} ({d.grade_score:.2f})" if d.grade else "not graded"
                    lines.append(f"        {d.source:<28} score {d.score:.3f}  {grade}  {_one_line(d.text, 50)}")
    lines.append(f"run id: {run.run_id} (details: python -m rag runs show {run.run_id})")
    return "\n".join(lines)


def cmd_runs(args: argparse.Namespace) -> int:
    store = _store(_settings())
    if args.runs_command == "list":
        rows = store.list(limit=args.limit, search=args.search, variant=args.variant)
        if args.json:
            _print_json(rows)
            return EXIT_OK
        if not rows:
            print("No runs recorded yet. Ask a question: python -m rag ask \"...\"")
            return EXIT_OK
        print(_table(["run id", "created", "variant", "route", "stop", "abst.", "calls", "ms", "question"],
                     [[r["run_id"], r["created_at"][:19], r["variant"], r["route"] or "-", r["stop_reason"] or "-",
                       "yes" if r["abstained"] else "", r["llm_calls"], f"{r['wall_ms']:.0f}",
                       _one_line(r["question"], 50)] for r in rows]))
        return EXIT_OK
    if args.runs_command == "show":
        run = store.get(args.run_id)
        if run is None:
            raise CliError(f"no run with id {args.run_id!r} (list them: python -m rag runs list)", EXIT_FAILED)
        if args.json:
            print(store.export_json(run.run_id))
        else:
            print(f"question: {run.question}\nvariant: {run.variant} · engine {run.engine.get('engine') or run.engine.get('name', '-')}"
                  f" · created {run.created_at}\n")
            print(_format_run(run, steps=True))
        return EXIT_OK
    if args.runs_command == "delete":
        if not store.delete(args.run_id):
            raise CliError(f"no run with id {args.run_id!r} (list them: python -m rag runs list)", EXIT_FAILED)
        print(f"deleted run {args.run_id}")
        return EXIT_OK
    if args.runs_command == "fork":
        return _fork(args, store)
    if args.runs_command == "export":
        return _export(args, store)
    raise CliError(f"unknown runs action {args.runs_command!r}", EXIT_USAGE)


def _fork(args: argparse.Namespace, store) -> int:
    from rag.engines import get_engine
    from rag.replay import fork_run, fork_summary
    from rag.types import RagError

    parent = store.get(args.run_id)
    if parent is None:
        raise CliError(f"no run with id {args.run_id!r} (list them: python -m rag runs list)", EXIT_FAILED)
    settings = _settings()
    with stdout_to_stderr() as out:
        engine = get_engine(settings)
        kb = _open_kb(settings, engine=engine)
        try:
            fork = fork_run(store, parent, args.step, args.edit, kb=kb, engine=engine, settings=settings)
        except RagError as exc:
            raise CliError(str(exc), EXIT_USAGE) from None
        finally:
            kb.close()
        if args.json:
            _print_json(fork_summary(fork), out=out)
        else:
            print(f"fork of {parent.run_id} at step {args.step} ({fork.replay['node']}): "
                  f"{fork.replay['edit']['text']} (recorded: {fork.replay['edit']['was']})\n", file=out)
            print("parent path: " + " → ".join(parent.path), file=out)
            print(_format_run(fork), file=out)
    return EXIT_OK


def _export(args: argparse.Namespace, store) -> int:
    from rag import handout

    runs = []
    for run_id in args.run_ids:
        run = store.get(run_id)
        if run is None:
            raise CliError(f"no run with id {run_id!r} (list them: python -m rag runs list)", EXIT_FAILED)
        runs.append(run)
    text = handout.comparison_handout(runs) if len(runs) > 1 else handout.handout_for(runs[0], store.get)
    path = Path(args.output or f"handout-{'-'.join(r.run_id for r in runs)}.html").expanduser()
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CliError(f"could not write {path}: {exc.strerror or exc}", EXIT_FAILED) from None
    note = "" if handout.svg("digraph{}") is not None else f" ({handout.DOT_MISSING})"
    print(f"wrote {path} ({len(text.encode('utf-8')):,} bytes; open it in any browser, offline){note}")
    return EXIT_OK


def cmd_lessons(args: argparse.Namespace) -> int:
    """List the lessons of lessons/, or run one offline in DATA_DIR/lessons/<id>/ and say whether it showed."""
    from rag.failures import summary
    from rag.lessons import load_lessons, run_lesson
    from rag.types import RagError

    try:
        lessons = load_lessons()
    except RagError as exc:
        raise CliError(str(exc), EXIT_FAILED) from None
    if not args.lesson_id:
        rows = [{"id": x.id, "code": x.code, "seed": x.seed, "title": x.title["en"], "question": x.question,
                 "variants": x.variants} for x in lessons]
        if args.json:
            _print_json(rows)
        else:
            print(_table(["id", "code", "variants", "question"],
                         [[r["id"], r["code"], ",".join(r["variants"]), _one_line(r["question"], 50)] for r in rows]))
        return EXIT_OK
    lesson = next((x for x in lessons if x.id == args.lesson_id), None)
    if lesson is None:
        raise CliError(f"no lesson {args.lesson_id!r} (list them: python -m rag lessons)", EXIT_USAGE)
    settings = _settings()
    with stdout_to_stderr() as out:
        result = run_lesson(lesson, settings.data_dir)
        if args.output:
            from rag import handout

            Path(args.output).expanduser().write_text(handout.lesson_handout(result), encoding="utf-8")
        if args.json:
            _print_json({"id": lesson.id, "code": lesson.code, "shows": result.shows, "avoided": result.avoided,
                         "expected_variant": lesson.expected_variant, "compare": lesson.compare,
                         "failure_steps": result.failure_steps(),
                         "variants": {v: {"run_id": r.run_id, "path": r.path, "labels": result.codes(v),
                                          "answer": r.answer} for v, r in result.runs.items()}}, out=out)
        else:
            print(f"{lesson.code} · {lesson.title['en']}\nQ: {lesson.question}", file=out)
            for v, r in result.runs.items():
                print(f"  {v:<10} {summary(result.labels[v]):<22} {' → '.join(r.path)}", file=out)
            verdict = "shows" if result.shows else "does NOT show"
            print(f"{lesson.code} {verdict} on {lesson.expected_variant}; {lesson.compare} "
                  f"{'avoids it' if result.avoided else 'shows it too'} (runs in {result.data_dir})", file=out)
    return EXIT_OK


def cmd_status(args: argparse.Namespace) -> int:
    from rag.engines import get_engine

    settings = _settings()
    with stdout_to_stderr() as out:
        engine = get_engine(settings)
        kb = _open_kb(settings, engine=engine)
        try:
            statuses = kb.status()
            try:
                counts = kb.counts()
            except Exception as exc:
                counts = {"error": str(exc)}
        finally:
            kb.close()
        runs = _store(settings).count()
        print(f"data directory: {settings.data_dir}", file=out)
        print(_table(["component", "backend", "state", "detail"],
                     [[s.component, s.backend, s.state, s.detail] for s in statuses]), file=out)
        hints = [f"  {s.component}: {s.how_to_enable}" for s in statuses if s.state != "active" and s.how_to_enable]
        if hints:
            print("to enable:\n" + "\n".join(hints), file=out)
        print("contents: " + ", ".join(f"{v} {k}" for k, v in counts.items()) + f", {runs} recorded runs", file=out)
        print(f"agent: threshold {settings.threshold}, max attempts {settings.max_attempts}, top-k {settings.top_k}",
              file=out)
    return EXIT_FAILED if any(s.state == "error" for s in statuses) else EXIT_OK


def _delegate(module_name: str, args: argparse.Namespace, extra: list[str]) -> int:
    import importlib

    try:
        module = importlib.import_module(module_name)
        cli_main = module.cli_main
    except (ImportError, AttributeError):
        print(f"'{args.command}' is not available yet in this version.", file=sys.stderr)
        return EXIT_FAILED
    return int(cli_main([*args.rest, *extra]) or 0)


def cmd_neo4j(args: argparse.Namespace) -> int:
    # rag neo4j's own --data-dir is Neo4j's folder; ours reaches it through RAG_DATA_DIR (set in main)
    return _delegate("rag.neo4j_local", args, [])


def cmd_eval(args: argparse.Namespace) -> int:
    extra = []
    if getattr(args, "data_dir", None) and "--data-dir" not in args.rest and args.rest[:1] != ["convert-peer"]:
        extra = ["--data-dir", str(Path(args.data_dir).expanduser())]
    return _delegate("rag.eval.cli", args, extra)


COMMANDS = {"ingest": cmd_ingest, "docs": cmd_docs, "delete": cmd_delete, "reset": cmd_reset, "repair": cmd_repair,
            "ask": cmd_ask,
            "compare": cmd_compare, "runs": cmd_runs, "status": cmd_status, "neo4j": cmd_neo4j, "eval": cmd_eval,
            "lessons": cmd_lessons}
