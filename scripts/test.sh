#!/usr/bin/env bash
# The test command: sets up .venv (with dev requirements), installs Chromium for the browser test if missing,
# starts a local Neo4j for the graph-store suite, runs pytest, and stops Neo4j again.
set -euo pipefail
cd "$(dirname "$0")/.."
WITH_DEV=1 bash scripts/setup.sh

# Debian packages the tests need (CI runs as root on a fresh machine): Chromium for the real-browser UI test,
# graphviz (`dot`) for the diagram test, Noto CJK so the screenshots show Korean and Chinese instead of boxes.
# Under CI a missing one fails its test (tests/support/prereq.py) rather than skipping it.
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v dot >/dev/null 2>&1 || missing+=(graphviz)
{ command -v fc-list >/dev/null 2>&1 && fc-list | grep -qi "Noto Sans CJK"; } || missing+=(fonts-noto-cjk)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null) \
      || echo "warning: could not install ${missing[*]}; the tests that need them will fail under CI" >&2
  else
    echo "warning: ${missing[*]} not installed and not root; run: sudo apt-get install ${missing[*]}" >&2
  fi
fi

# A real Neo4j for the graph-store suites (Neo4j 5.26 embedded in tools/neo4j-local, built with Maven on first use;
# docs/neo4j.md). It listens on a free port (NEO4J_TEST_PORT to pick one) and is stopped when this script exits.
export NEO4J_PASSWORD_TEST=${NEO4J_PASSWORD_TEST:-test-password-123}
neo4j_dir=.neo4j-local/test
neo4j_cli() { NEO4J_USER=neo4j NEO4J_PASSWORD="$NEO4J_PASSWORD_TEST" .venv/bin/python -m rag neo4j "$@"; }
stop_neo4j() { neo4j_cli stop --data-dir "$neo4j_dir" >&2 || true; }
if { command -v java && command -v mvn; } >/dev/null 2>&1 || [ -n "${CI:-}" ]; then
  stop_neo4j  # one left behind by an interrupted earlier run
  rm -rf "$neo4j_dir"
  trap stop_neo4j EXIT
  neo4j_out=$(neo4j_cli start --port "${NEO4J_TEST_PORT:-0}" --data-dir "$neo4j_dir")
  RAG_TEST_NEO4J_URI=$(printf '%s\n' "$neo4j_out" | sed -n 's/^NEO4J_URI=//p')
  [ -n "$RAG_TEST_NEO4J_URI" ] || { echo "error: 'rag neo4j start' printed no NEO4J_URI" >&2; exit 1; }
  export RAG_TEST_NEO4J_URI
  echo "Neo4j for the tests: $RAG_TEST_NEO4J_URI" >&2
else
  echo "warning: java or mvn not found: the Neo4j tests will be skipped (they fail under CI);" \
       "install openjdk-17-jdk-headless and maven to run them" >&2
fi

# The offline engine on documents it was never tuned on (issue 8; scripts/eval_gate.sh): issue 8's targets on the
# unseen corpus and on the sample set's paraphrases (within 0.05 of the sample set), no regression on the other frozen
# held-out corpora, and none on the sample set (its training figures). About ten minutes on two cores. RAG_SKIP_EVAL_GATE=1 skips it
# on a developer's machine; never under CI. It runs first so that pytest's summary stays the last word.
gate_rc=0
if [ -z "${RAG_SKIP_EVAL_GATE:-}" ] || [ -n "${CI:-}" ]; then
  EVAL_GATE_SETS="sample paraphrases unseen ratchet" bash scripts/eval_gate.sh || gate_rc=$?
fi

test_rc=0
.venv/bin/python -m pytest "$@" || test_rc=$?
if [ "$gate_rc" -ne 0 ]; then
  echo "error: the eval gate failed (exit $gate_rc): see the 'gate MISS' lines above" >&2
fi
[ "$test_rc" -ne 0 ] && exit "$test_rc"
exit "$gate_rc"
