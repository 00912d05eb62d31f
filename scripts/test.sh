#!/usr/bin/env bash
# make test: fetches what the tests need, then runs every test with every
# check required, so that a test which cannot find its model, data or
# browser fails instead of skipping. What it fetches (each step is a no-op
# when already done): llama.cpp's tokenizer test vocabularies, the models
# the tests use, the RepoExec development projects' test environments and
# sources (from PyPI), pytest and setuptools, and Chromium (apt, as root)
# for the web page's tests. The RepoExec development subset itself is in
# testdata/. The report ends with every skipped test and its reason; with
# CI=true a skipped test fails the run.
#
#   ACTOR_HOME   models, vocabularies, sources (default ~/.cache/actor)
#   ACTOR_REPOS  the dev projects' sources (default $ACTOR_HOME/repoexec-dev-sources)
set -euo pipefail
cd "$(dirname "$0")/.."
export ACTOR_HOME="${ACTOR_HOME:-$HOME/.cache/actor}"

python3 -m pip install --quiet pytest
python3 -c "import setuptools" 2>/dev/null || python3 -m pip install --quiet setuptools
scripts/fetch-vocab.sh
./bin/actor models pull -q smollm2-135m qwen2.5-coder-0.5b qwen2.5-coder-1.5b all-minilm-l6-v2
./bin/actor bench setup --benchmark repoexec --project python-string-utils,flutils,pyMonet
export ACTOR_REPOS="${ACTOR_REPOS:-$ACTOR_HOME/repoexec-dev-sources}"
scripts/repoexec-dev-sources.sh "$ACTOR_REPOS"
if ! command -v chromium >/dev/null; then
	if [ "$(id -u)" = 0 ]; then
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
	else
		echo "test: chromium is missing (the web page's tests need it; install it as root: apt-get install chromium)" >&2
	fi
fi

# Every prerequisite is required: missing, it fails its tests.
export ACTOR_REQUIRE_VOCAB=1 ACTOR_REQUIRE_MODELS=1 ACTOR_REQUIRE_MINILM=1 ACTOR_REQUIRE_SETUPTOOLS=1 \
	ACTOR_REQUIRE_GIT=1 ACTOR_REQUIRE_CHROMIUM=1 ACTOR_REQUIRE_SANDBOX=1 ACTOR_REQUIRE_REPOEXEC_DEV=1
export ACTOR_TEST_ARTIFACTS="${ACTOR_TEST_ARTIFACTS:-$PWD/test-artifacts}"

go vet ./...
skip=()
[ "${CI:-}" = true ] && skip=(-fail-on-skip)
go build -o bin/testreport ./scripts/testreport
go test -json -timeout 30m ./... | bin/testreport "${skip[@]}"
