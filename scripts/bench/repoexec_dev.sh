#!/bin/sh
# The five methods on the 68 RepoExec development tasks, one after another,
# then the side-by-side report. Resumable: rerun after an interruption and
# every method continues where it stopped.
#   scripts/bench/repoexec_dev.sh [OUT] [extra 'actor run' flags...]
# Needs: make build; actor models pull smollm2-135m all-minilm-l6-v2; the
# projects' sources under $REPOS (the folder holding test-apps/);
# a Python with the tests' dependencies in $PYTHON (scripts/setup-python-tests.sh).
set -eu
cd "$(dirname "$0")/../.."
OUT=${1:-runs/repoexec-dev-smollm2}
[ $# -gt 0 ] && shift
DATA=${DATA:-testdata/repoexec-dev/tasks.jsonl}
REPOS=${REPOS:?set REPOS to the folder holding test-apps/}
PYTHON=${PYTHON:?set PYTHON to the Python the tests run with (scripts/setup-python-tests.sh)}
ACTOR=${ACTOR:-bin/actor}
THREADS=${THREADS:-2} # ggml threads (decoder and encoder); 1 if the machine is shared
for m in rawprompt rawrag repocoder rlcoder actor; do
	echo "=== $m $(date -u +%H:%M:%S)" >&2
	# the methods as published: the authors' prompts (--no-context), the
	# paper's exact ACToR
	how=--no-context
	[ $m = actor ] && how=--exact
	"$ACTOR" run --benchmark repoexec --data "$DATA" --repos "$REPOS" --method $m $how -n 1 --threads "$THREADS" --trace \
		--out "$OUT/$m" --python "$PYTHON" "$@"
done
"$ACTOR" bench report "$OUT"/rawprompt/eval "$OUT"/rawrag/eval "$OUT"/repocoder/eval "$OUT"/rlcoder/eval "$OUT"/actor/eval \
	--out "$OUT/report"
