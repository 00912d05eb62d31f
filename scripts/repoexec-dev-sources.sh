#!/usr/bin/env bash
# Lays out the sources the RepoExec development subset's tests need, for a
# machine without the codamosa test-apps folder (CI): the package folders of
# python-string-utils 1.0.0, flutils 0.7 and pyMonet 0.12.0 from their PyPI
# releases, which are byte-identical to the folders of codamosa's
# replication/test-apps (checked with diff -r when these pins were chosen).
# Each download is checked against its SHA-256.
#
# Enough for the harness (the tests pass the same), not for generation:
# the releases lack the projects' tests/ and other files codamosa's folder
# has, so retrieval reads other blocks there. Every result under results/
# was generated over codamosa's folder; a run's run.json records each
# project's sources SHA-256 and refuses to continue over the other layout.
#
# Usage: scripts/repoexec-dev-sources.sh DEST
#   then: actor bench run --repos DEST ... (DEST/test-apps/<project>/<package>)
set -euo pipefail

dest="${1:?usage: scripts/repoexec-dev-sources.sh DEST}"
PY="${PYTHON:-python3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# project  package-folder  requirement  kind  sha256
while read -r project pkg req kind sha; do
  out="$dest/test-apps/$project/$pkg"
  mark="$dest/test-apps/$project/.actor-source"
  if [ -d "$out" ] && [ -f "$mark" ] && [ "$(cat "$mark")" = "$sha" ]; then
    echo "$project: already laid out in $out"
    continue
  fi
  dl="$tmp/$project"
  mkdir -p "$dl"
  if [ "$kind" = sdist ]; then
    "$PY" -m pip download --quiet --no-deps --no-binary :all: -d "$dl" "$req"
  else
    "$PY" -m pip download --quiet --no-deps --only-binary :all: -d "$dl" "$req"
  fi
  file="$(ls "$dl")"
  got="$(sha256sum "$dl/$file" | cut -d' ' -f1)"
  if [ "$got" != "$sha" ]; then
    echo "repoexec-dev-sources: $file has SHA-256 $got, want $sha" >&2
    exit 1
  fi
  mkdir -p "$dl/x"
  if [ "$kind" = sdist ]; then
    tar -xzf "$dl/$file" -C "$dl/x" --strip-components=1
  else
    "$PY" -m zipfile -e "$dl/$file" "$dl/x"
  fi
  [ -d "$dl/x/$pkg" ] || { echo "repoexec-dev-sources: $file has no folder $pkg" >&2; exit 1; }
  rm -rf "$out"
  mkdir -p "$(dirname "$out")"
  cp -r "$dl/x/$pkg" "$out"
  echo "$sha" > "$mark"
  echo "$project: $file -> $out"
done <<'EOF'
python-string-utils string_utils python-string-utils==1.0.0 sdist dcf9060b03f07647c0a603408dc8b03f807f3b54a05c6e19eb14460256fac0cb
flutils flutils flutils==0.7 wheel 185943439de40f96c9c166c106a8962704cc19433356a0b3c135d9816e2e0c81
pyMonet pymonet pymonet==0.12.0 sdist c34dc032dcd27e2bc8f445aa5c12aa5d86c672c56b6ed3009462275454d945cc
EOF
