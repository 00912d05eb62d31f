#!/bin/sh
# The context experiment (actor experiment context) on the 68 RepoExec
# development tasks, as cut for a 2-core machine, one step after another,
# each resumable: run the script again after an interruption and every
# step continues where it stopped (finished ones only render their reports
# again).
#   REPOS=DIR scripts/bench/context_experiments.sh
# REPOS: the folder holding test-apps/ (codamosa's replication/test-apps,
# as Table I used). Needs make build, the models pulled and the benchmark
# environments made (actor bench setup). Every actor run starts from the
# ACTOR file (default bin/actor): to rebuild while the script runs, point
# ACTOR at a copy, or a run folder gets samples of two binaries.
#
# The steps, in the order they matter:
#   1. n = 5, batched, Qwen2.5-Coder-0.5B, into Table I's folder, whose
#      RawPrompt, RawRAG and RepoCoder runs are these configurations
#      already: RawPrompt + the file's code, + the definitions in scope,
#      and ACToR over both without and with name lookup.
#   1b. n = 5 again with the indent guard (--indent-guard), into
#      OUT-indent: RawPrompt + the file's code (its first run), the
#      model's repository format over it, the file's code with the name
#      index; then ACToR without and with name lookup over the best of
#      those contexts, the repository format over the file's code
#      (--no-context keeps the definitions in scope out, as in that
#      RawPrompt row; the folder actor-file-sym-lookup holds a first try
#      over the file's code and the definitions); then RawRAG and
#      RepoCoder over the same context. Fill in the middle
#      is left out: with this instruct model it writes unrelated code
#      (task 0, greedy: a regular expression instead of input_string[::-1],
#      which the repository format writes).
#   2. cost, n = 1 unbatched on the first 20 tasks, with the guard,
#      configurations in turns of 4 tasks: ms per token and seconds per
#      sample of the contexts of step 1b against RawRAG, in one run.
#   3. Qwen2.5-Coder-1.5B on the first 20 tasks, n = 5, with the guard,
#      into OUT15-indent (its Table I folder holds RawPrompt without the
#      guard, to compare with): RawPrompt + file, the repository format
#      over it (now the default) and ACToR over that; then the same three
#      unbatched at n = 1 for seconds per sample against step 2's, for
#      the choice of default model.
#   4. the rest of the n = 1 screen, in OUT-screen (OUT-context holds the
#      first screen, whose file code was cut at lines, not statements):
#      the model's repository format and fill in the middle over the file
#      and the definitions in scope, RepoCoder with them, ACToR in fill
#      in the middle with name lookup. Left out: RawRAG and RepoCoder
#      without context (Table I has them at n = 5) and name lookup alone
#      (--name-lookup only; add is the variant measured).
set -eu
cd "$(dirname "$0")/../.."
OUT=${OUT:-results/repoexec-dev-qwen2.5-coder-0.5b}
OUT15=${OUT15:-results/repoexec-dev-qwen2.5-coder-1.5b}
DATA=${DATA:-testdata/repoexec-dev}
REPOS=${REPOS:?set REPOS to the folder holding test-apps/}
ACTOR=${ACTOR:-bin/actor}
THREADS=${THREADS:-2}
CONTEXT=rawprompt-file,rawprompt-file-sym,actor-file-sym,actor-file-sym-lookup

context() {
	echo "=== context $* ($(date -u +%H:%M:%S))" >&2
	"$ACTOR" experiment context --benchmark repoexec --data "$DATA" --repos "$REPOS" --threads "$THREADS" \
		--bench-args "--workers 2" "$@"
}

context --model qwen2.5-coder-0.5b --out "$OUT" -n 5 --step 4 --run-args --batch-samples \
	--only "rawprompt,rawrag,repocoder,$CONTEXT"
context --model qwen2.5-coder-0.5b --out "$OUT-indent" -n 5 --step 4 --run-args "--batch-samples --indent-guard" \
	--only rawprompt-file,rawprompt-repo-file,rawprompt-file-index,actor-repo-file,actor-repo-file-lookup,rawrag-repo-file,repocoder-repo-file
BEST=rawprompt-file,rawprompt-repo-file,actor-repo-file
context --model qwen2.5-coder-0.5b --out "$OUT-cost3" -n 1 --step 4 --limit 20 --run-args --indent-guard \
	--only "rawrag,$BEST"
context --model qwen2.5-coder-1.5b --out "$OUT15-indent" -n 5 --step 4 --limit 20 --run-args "--batch-samples --indent-guard" \
	--only "$BEST"
context --model qwen2.5-coder-1.5b --out "$OUT15-cost" -n 1 --step 4 --limit 20 --run-args --indent-guard --only "$BEST"
context --model qwen2.5-coder-0.5b --out "$OUT-screen" -n 1 --step 68 \
	--only rawprompt-file,rawprompt-repo-file-sym,rawprompt-fim-file-sym,repocoder-file-sym,repocoder-fim-file-sym,actor-fim-file-sym-lookup
