#!/usr/bin/env bash
# Creates .venv and installs the pinned Python requirements (idempotent, quick when nothing changed).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.requirements.sha
want=$(cat requirements.txt requirements-nodeps.txt requirements-dev.txt requirements-lock.txt 2>/dev/null \
  | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] || [ "${1:-}" = "--force" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  # requirements-lock.txt pins every transitive package too (the same versions on every machine: same figures)
  .venv/bin/python -m pip install --quiet -r requirements.txt ${WITH_DEV:+-r requirements-dev.txt} \
    -c requirements-lock.txt
  .venv/bin/python -m pip install --quiet --no-deps -r requirements-nodeps.txt
  [ -n "${WITH_DEV:-}" ] && echo "$want" > "$stamp" || true
fi
