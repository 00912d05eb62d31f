#!/usr/bin/env bash
# Fills the tokenizer test vocabulary directory with llama.cpp's vocab-only
# GGUF files and their .inp/.out test pairs, taken from the llama-cpp-python
# source distribution on PyPI (only those files are extracted).
#
#   ACTOR_VOCAB_DIR  target folder (default: ${XDG_CACHE_HOME:-~/.cache}/actor/vocab)
#   ACTOR_PIP_DL     folder for the downloaded sdist (default: $ACTOR_VOCAB_DIR/.dl)
set -euo pipefail

version=0.3.36
dir=${ACTOR_VOCAB_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/actor/vocab}
dl=${ACTOR_PIP_DL:-$dir/.dl}
names="llama-bpe llama-spm qwen2 deepseek-coder gpt-2 starcoder refact"

have_all() {
	for n in $names; do
		for ext in gguf gguf.inp gguf.out; do
			[ -s "$dir/ggml-vocab-$n.$ext" ] || return 1
		done
	done
}

if have_all; then
	echo "fetch-vocab: $dir already complete"
	exit 0
fi

mkdir -p "$dir" "$dl"
sdist=$dl/llama_cpp_python-$version.tar.gz
if [ ! -s "$sdist" ]; then
	python3 -m pip download --no-deps \
		"llama-cpp-python==$version" -d "$dl"
fi

members=()
for n in $names; do
	for ext in gguf gguf.inp gguf.out; do
		members+=("llama_cpp_python-$version/vendor/llama.cpp/models/ggml-vocab-$n.$ext")
	done
done
tar -xzf "$sdist" -C "$dir" --strip-components=4 "${members[@]}"
have_all || { echo "fetch-vocab: extraction from $sdist incomplete" >&2; exit 1; }
echo "fetch-vocab: vocab files in $dir"
