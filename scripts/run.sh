#!/usr/bin/env bash
# Sets up .venv and starts the Streamlit app on http://localhost:8501 (offline defaults, no keys needed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/streamlit run app.py --server.headless true --browser.gatherUsageStats false "$@"
