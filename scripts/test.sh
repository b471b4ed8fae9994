#!/usr/bin/env bash
# The test command: sets up .venv (with dev requirements), installs Chromium for the browser test if missing,
# starts a local Neo4j for the graph-store suite, runs pytest, and stops Neo4j again.
set -euo pipefail
cd "$(dirname "$0")/.."
WITH_DEV=1 bash scripts/setup.sh

# Debian's Chromium for the real-browser UI test (CI runs as root on a fresh machine).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
      || echo "warning: could not install chromium; the browser test will fail" >&2
  else
    echo "warning: chromium not installed and not root; run: sudo apt-get install chromium" >&2
  fi
fi

# A real Neo4j for the graph-store conformance suite (embedded Neo4j 5.26 built with Maven).
export NEO4J_PASSWORD_TEST=${NEO4J_PASSWORD_TEST:-test-password-123}
NEO4J_TEST_PORT=${NEO4J_TEST_PORT:-7699}
neo4j_dir=.neo4j-local/test
stop_neo4j() { NEO4J_PASSWORD="$NEO4J_PASSWORD_TEST" .venv/bin/python -m rag neo4j stop --data-dir "$neo4j_dir" >/dev/null 2>&1 || true; }
if [ -f rag/neo4j_local.py ]; then
  trap stop_neo4j EXIT
  rm -rf "$neo4j_dir"
  NEO4J_PASSWORD="$NEO4J_PASSWORD_TEST" .venv/bin/python -m rag neo4j start --port "$NEO4J_TEST_PORT" --data-dir "$neo4j_dir"
  export RAG_TEST_NEO4J_URI="bolt://127.0.0.1:$NEO4J_TEST_PORT"
fi

.venv/bin/python -m pytest "$@"
