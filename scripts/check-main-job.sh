#!/usr/bin/env bash
# Runs the README's main job and tests what it writes: the generated
# inventory.report.price_list replaces the original in a copy of
# examples/inventory, and examples/checks/test_report.py checks it.
# Extra arguments go to actor generate (e.g. --exact, --method rawrag).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$(./bin/actor generate --repo examples/inventory --target inventory/report.py:11 "$@")
printf '%s\n' "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r examples/inventory "$tmp/"
GENERATED="$out" python3 - "$tmp/inventory/inventory/report.py" <<'PY'
import ast, os, sys
path = sys.argv[1]
src = open(path).read()
lines = src.splitlines(keepends=True)
fn = next(n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef) and n.name == "price_list")
new = os.environ["GENERATED"].rstrip("\n") + "\n"
open(path, "w").write("".join(lines[: fn.lineno - 1]) + new + "".join(lines[fn.end_lineno :]))
PY
cd "$tmp/inventory"
python3 -m pytest -q -p no:cacheprovider "$root/examples/checks/test_report.py"
