#!/usr/bin/env bash
# build-cuda.sh: ggml's CUDA backend as a loadable library beside actor
# (bin/libggml-cuda.so, with the cuBLAS libraries it needs), compiled from
# the same ggml source the binary links (the ollama module in go.mod) with
# the CUDA toolkit's PyPI wheels (scripts/cuda-wheels.txt). `make cuda`.
#
#   scripts/build-cuda.sh                  # sm_80 sm_86 sm_89 sm_90 SASS + compute_90 PTX
#   CUDA_ARCHS=90 CUDA_PTX= scripts/build-cuda.sh   # one architecture (the reduced build)
#
# Resumable: one object per source under .cache/cuda/obj/<flags hash>/,
# written atomically; a rerun compiles only what is missing. JOBS (default
# 2) compiles run at once, each under nice -n 19. Prints [done/total] per
# object with its seconds, then the link, the library's size and the wall
# time. Needs pip, g++ and network access to PyPI on the first run only.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${ACTOR_CUDA_CACHE:-$ROOT/.cache/cuda}
OUT=${OUT:-$ROOT/bin}
ARCHS=${CUDA_ARCHS-80 86 89 90}
PTX=${CUDA_PTX-90}
JOBS=${JOBS:-2}
NICE=${NICE:-nice -n 19}
WHEELS=$ROOT/scripts/cuda-wheels.txt
start=$(date +%s)

say() { printf 'build-cuda: %s\n' "$*"; }
die() { printf 'build-cuda: %s\n' "$*" >&2; exit 1; }

# 1. The pinned wheels, installed into $CACHE/pkgs and checked.
mapfile -t pins < <(grep -v '^#' "$WHEELS" | grep .)
PKGS=$CACHE/pkgs
CUDA=$PKGS/nvidia/cu13
stamp=$PKGS/.pins
if [[ ! -f $stamp ]] || ! cmp -s <(printf '%s\n' "${pins[@]}") "$stamp"; then
	say "installing ${#pins[@]} pinned CUDA wheels into ${PKGS#"$ROOT"/}"
	mkdir -p "$CACHE/wheels"
	$NICE pip download --quiet --no-deps --dest "$CACHE/wheels" "${pins[@]}"
	rm -rf "$PKGS"
	files=()
	for p in "${pins[@]}"; do
		name=${p%%==*}; ver=${p#*==}
		f=$(ls "$CACHE/wheels/${name//-/_}-$ver-"*.whl 2>/dev/null | head -1)
		[[ -n $f ]] || die "wheel $p not downloaded"
		files+=("$f")
	done
	$NICE pip install --quiet --no-deps --no-index --target "$PKGS" "${files[@]}" 2>&1 | grep -v 'as the .root. user' || true
	printf '%s\n' "${pins[@]}" >"$stamp"
fi
for p in "${pins[@]}"; do
	name=${p%%==*}; ver=${p#*==}
	[[ -d $PKGS/${name//-/_}-$ver.dist-info ]] || die "$p is not what ${PKGS#"$ROOT"/} holds (rm -r it and run again)"
done
NVCC=$CUDA/bin/nvcc
[[ -x $NVCC ]] || die "no nvcc in the wheels (${NVCC#"$ROOT"/})"
nvver=$("$NVCC" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
[[ $nvver == 13.0 ]] || die "nvcc reports release '$nvver', the pins say 13.0"
say "nvcc $nvver, host compiler $(g++ -dumpfullversion)"

# 2. The ggml source of the module actor links.
MOD=$(cd "$ROOT" && go list -m -f '{{.Dir}}' github.com/ollama/ollama)
MODVER=$(cd "$ROOT" && go list -m -f '{{.Version}}' github.com/ollama/ollama)
SRC=$MOD/ml/backend/ggml/ggml/src
[[ -d $SRC/ggml-cuda ]] || die "no ggml-cuda in $SRC (go mod download first)"

# ggml's own selection (ggml-cuda/CMakeLists.txt without GGML_CUDA_FA_ALL_QUANTS).
T=$SRC/ggml-cuda/template-instances
srcs=("$SRC"/ggml-cuda/*.cu "$T"/fattn-tile*.cu "$T"/fattn-mma*.cu "$T"/mmq*.cu "$T"/mmf*.cu
	"$T"/fattn-vec*q4_0-q4_0.cu "$T"/fattn-vec*q8_0-q8_0.cu "$T"/fattn-vec*f16-f16.cu)

gencode=()
for a in $ARCHS; do gencode+=(-gencode "arch=compute_$a,code=sm_$a"); done
[[ -n $PTX ]] && gencode+=(-gencode "arch=compute_$PTX,code=compute_$PTX")
[[ ${#gencode[@]} -gt 0 ]] || die "no architecture: set CUDA_ARCHS or CUDA_PTX"
flags=(-std=c++17 -O3 -use_fast_math -extended-lambda -compress-mode=size
	-Xcompiler -fPIC,-Wno-pedantic
	-DNDEBUG -DGGML_BACKEND_BUILD -DGGML_BACKEND_SHARED -DGGML_BACKEND_DL -DGGML_SHARED
	-DGGML_CUDA_NO_VMM -DGGML_CUDA_USE_GRAPHS -DGGML_CUDA_PEER_MAX_BATCH_SIZE=128
	-DGGML_SCHED_MAX_COPIES=4
	-I"$SRC/../include" -I"$SRC" -I"$SRC/ggml-cuda" "${gencode[@]}")
tag=$(printf '%s\n' "$nvver" "$MODVER" "${flags[@]/#$MOD/MOD}" | sha256sum | cut -c1-12)
OBJ=$CACHE/obj/$tag
mkdir -p "$OBJ"
printf '%s\n' "ollama $MODVER" "nvcc $nvver" "archs: ${ARCHS:-none} ptx: ${PTX:-none}" >"$OBJ/README"
say "ollama $MODVER ggml-cuda: ${#srcs[@]} sources, SASS for '${ARCHS}', PTX for '${PTX}', $JOBS at a time, objects in ${OBJ#"$ROOT"/}"

# 3. One object per source, compiled only when missing.
compile() { # source
	local s=$1 o t0 t1 n
	o=$OBJ/$(basename "${s%.cu}").o
	[[ -f $o ]] && return 0
	t0=$(date +%s)
	if ! $NICE "$NVCC" "${flags[@]}" -c "$s" -o "$o.tmp" 2>"$o.log"; then
		cat "$o.log" >&2
		die "failed: ${s#"$MOD"/}"
	fi
	mv "$o.tmp" "$o"
	rm -f "$o.log"
	t1=$(date +%s)
	printf '%s\t%d\n' "$(basename "$s")" $((t1 - t0)) >>"$OBJ/times.tsv"
	n=$(ls "$OBJ"/*.o | wc -l)
	printf 'build-cuda: [%d/%d] %s %ds\n' "$n" "$N" "$(basename "$s")" $((t1 - t0))
}
export -f compile die
export OBJ NVCC NICE MOD N=${#srcs[@]}
export FLAGS_FILE=$OBJ/flags
printf '%s\0' "${flags[@]}" >"$FLAGS_FILE"
# xargs runs compile in child shells; they read the flags back from the file.
printf '%s\0' "${srcs[@]}" | xargs -0 -P "$JOBS" -n 1 bash -c '
	mapfile -d "" -t flags <"$FLAGS_FILE"; compile "$1"' _ || die "compilation stopped; run again to continue"

# 4. Link: cudart static, cuBLAS beside the library (rpath $ORIGIN); the
#    ggml_* symbols stay undefined and come from actor, which exports them.
mkdir -p "$OUT"
objs=()
for s in "${srcs[@]}"; do objs+=("$OBJ/$(basename "${s%.cu}").o"); done
$NICE g++ -shared -o "$OUT/libggml-cuda.so.tmp" "${objs[@]}" \
	-L"$CUDA/lib" -l:libcudart_static.a -l:libcublas.so.13 -l:libcublasLt.so.13 \
	-lpthread -ldl -lrt -Wl,-rpath,'$ORIGIN' -Wl,--as-needed
mv "$OUT/libggml-cuda.so.tmp" "$OUT/libggml-cuda.so"
for l in libcublas.so.13 libcublasLt.so.13; do
	cmp -s "$CUDA/lib/$l" "$OUT/$l" 2>/dev/null || cp "$CUDA/lib/$l" "$OUT/$l"
done

# 5. What the library needs from actor must be there.
missing=$(nm -D --undefined-only "$OUT/libggml-cuda.so" | awk '{print $2}' | grep -E '^(ggml|gguf)_' || true)
if [[ -x $OUT/actor ]]; then
	have=$(nm -D --defined-only "$OUT/actor" | awk '{print $3}')
	lost=$(comm -23 <(sort -u <<<"$missing") <(sort -u <<<"$have"))
	[[ -z $lost ]] || die "actor does not export: $(tr '\n' ' ' <<<"$lost")"
	say "actor exports all $(wc -l <<<"$missing") ggml symbols the library uses"
fi
size() { du -b "$1" | cut -f1 | awk '{printf "%.1f MiB", $1/1048576}'; }
say "built ${OUT#"$ROOT"/}/libggml-cuda.so: $(size "$OUT/libggml-cuda.so") (cuBLAS beside it: $(size "$OUT/libcublas.so.13") + $(size "$OUT/libcublasLt.so.13"))"
say "compile seconds (all objects, summed): $(awk '{s+=$2} END {print s+0}' "$OBJ/times.tsv"); this run's wall time: $(($(date +%s) - start))s"
