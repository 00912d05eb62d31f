#!/usr/bin/env bash
# Superseded for RepoExec by `actor bench setup` (one locked Python 3.10
# environment per project, bench/envs/README.md), which the harness picks by
# itself; this script stays for a quick single environment of the current
# interpreter, whose versions are whatever pip resolves today.
#
# Installs what the benchmark tests import into the Python interpreter that
# `actor bench run --python` uses: pytest, numpy and timeout_decorator
# (RepoExec's test programs import all three), and the runtime requirements
# of each project folder given as an argument, as its setup.py, setup.cfg or
# pyproject.toml declares them (resolved by pip; the project itself is not
# installed: the harness tests a copy of its sources).
#
# Usage: scripts/setup-python-tests.sh [--venv DIR] [PROJECT_DIR...]
#   PYTHON    the interpreter to install into (default python3), or, with
#             --venv, the one the virtual environment is made from.
#   --venv DIR  make (or reuse) a virtual environment in DIR and install
#             into it; use `--python DIR/bin/python` with actor bench run.
#             When the harness runs as root, a venv made from an interpreter
#             every user can reach (e.g. PYTHON=/usr/bin/python3) lets the
#             sandbox show candidates as root inside a user namespace, as the
#             benchmarks' Docker images do (some tests check for uid 0).
#
# For the RepoExec development subset:
#   PYTHON=/usr/bin/python3 scripts/setup-python-tests.sh --venv DIR/bench-venv \
#     DIR/test-apps/{python-string-utils,flutils,pyMonet}
set -euo pipefail

PY="${PYTHON:-python3}"
if [ "${1:-}" = "--venv" ]; then
  [ $# -ge 2 ] || { echo "setup-python-tests: --venv needs a folder" >&2; exit 2; }
  venv="$2"
  shift 2
  if [ ! -x "$venv/bin/python" ]; then
    echo "making a virtual environment in $venv from $("$PY" -c 'import sys; print(sys.executable)')"
    (cd / && "$PY" -m venv "$venv")
  fi
  PY="$venv/bin/python"
fi
"$PY" -m pip --version >/dev/null || { echo "setup-python-tests: $PY has no pip" >&2; exit 1; }

echo "installing pytest, numpy, timeout_decorator into $("$PY" -c 'import sys; print(sys.executable)')"
"$PY" -m pip install --quiet pytest numpy timeout_decorator

status=0
for proj in "$@"; do
  if [ ! -d "$proj" ]; then
    echo "setup-python-tests: $proj is not a folder" >&2
    status=1
    continue
  fi
  report="$(mktemp)"
  # The dry run resolves the project's declared requirements against what is
  # installed; the report lists what would be installed.
  if ! "$PY" -m pip install --quiet --dry-run --report "$report" "$proj" >/dev/null 2>"$report.err"; then
    echo "setup-python-tests: warning: pip cannot resolve the requirements of $proj:" >&2
    tail -3 "$report.err" >&2
    status=1
    rm -f "$report" "$report.err"
    continue
  fi
  mapfile -t reqs < <("$PY" - "$report" <<'PYEOF'
import json, sys
report = json.load(open(sys.argv[1]))
for item in report.get("install", []):
    url = item.get("download_info", {}).get("url", "")
    if url.startswith("file:"):
        continue  # the project itself
    meta = item["metadata"]
    print(f"{meta['name']}=={meta['version']}")
PYEOF
)
  rm -f "$report" "$report.err"
  if [ "${#reqs[@]}" -eq 0 ]; then
    echo "$proj: no requirements to install"
    continue
  fi
  echo "$proj: installing ${reqs[*]}"
  "$PY" -m pip install --quiet "${reqs[@]}" || status=1
done
echo "done: run the harness with --python $("$PY" -c 'import sys; print(sys.executable)')"
exit "$status"
