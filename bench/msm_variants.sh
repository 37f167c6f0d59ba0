#!/bin/bash
# One cuzk-bench per variant of the MSM kernels built with -D flags (its default variants: G2's
# pairwise level 0, kernels/msm/msm_pairwise.cuh), for timing them side by side on a GPU:
#   bench/msm_variants.sh OUTDIR [NAME=FLAGS ...]
#   OUTDIR/cuzk-bench-NAME msm --backend cuda --curve g2 --log 24 --scalars device --reps 5
# Run from a checkout whose build/ is complete (make CUDA_ARCHS=sm_90). Each variant compiles
# kernels/msm/msm.cu with its -D flags (nvcc as the build runs it, plus -Xptxas -v), puts that
# msm.o into a copy of build/lib/libcuzk-internal.a and links cuzk-bench against the copy with
# the build's own link line. OUTDIR/ptxas.txt has the pairwise kernels' registers and spills.
# JOBS=N compiles N variants at once (default 2).
set -euo pipefail
out=${1:?usage: $0 OUTDIR [NAME=FLAGS ...]}
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.."

# name=flags; the defaults: G2's plain form, its lean form (the default since session 16)
# uncapped, and the lean form at 12 warps (168 registers) and 16 warps (128) an SM
variants=("$@")
if [ ${#variants[@]} -eq 0 ]; then
    variants=("plain=-DMSM_PAIR_LEAN_G2=0"
              "lean=-DMSM_PAIR_LEAN_G2=1"
              "lean-b6=-DMSM_PAIR_LEAN_G2=1 -DMSM_PAIR_MINB_G2=6"
              "lean-b8=-DMSM_PAIR_LEAN_G2=1 -DMSM_PAIR_MINB_G2=8")
fi

lib=build/lib/libcuzk-internal.a
[ -f "$lib" ] && [ -f build/bin/cuzk-bench ] || { echo "$0: build/ is not built (make CUDA_ARCHS=sm_90 first)" >&2; exit 1; }

# the build's own command lines: -W pretends the source changed, -n prints without running;
# make's backslash continuations joined into one line
joined() { make -s -n -W "$1" "$2" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta'; }
nvcc_line=$(joined kernels/msm/msm.cu build/obj/kernels/msm/msm.o | grep -F -- '-o build/obj/kernels/msm/msm.o' | tail -1)
link_line=$(joined bench/main.c build/bin/cuzk-bench | grep -F -- '-o build/bin/cuzk-bench' | tail -1)
[ -n "$nvcc_line" ] && [ -n "$link_line" ] || { echo "$0: could not read the build's nvcc or link line" >&2; exit 1; }

build_one() { # name flags
    local name=$1 flags=$2 dir="$out/obj/$1"
    mkdir -p "$dir"
    local cmd=${nvcc_line/-o build\/obj\/kernels\/msm\/msm.o/-o $dir\/msm.o}
    cmd=${cmd/-MMD -MP/}
    echo "[$name] $flags"
    eval "$cmd $flags -Xptxas -v" > "$dir/ptxas.log" 2>&1 || { cat "$dir/ptxas.log" >&2; return 1; }
    cp "$lib" "$dir/libcuzk-internal.a"
    ar r "$dir/libcuzk-internal.a" "$dir/msm.o"
    local ln=${link_line//build\/lib\/libcuzk-internal.a/$dir\/libcuzk-internal.a}
    ln=${ln/-o build\/bin\/cuzk-bench/-o $out\/cuzk-bench-$name}
    eval "$ln"
}

# ptxas's lines for the pairwise kernels: G1 (mont_t) and G2 (fp2_gpu)
summary() { # name
    awk -v n="$1" '
        /Compiling entry function/ { want = 0; if ($0 ~ /acc_pair_fn/) { want = 1; c = ($0 ~ /fp2_gpu/) ? "G2" : "G1" } }
        want && /bytes stack frame/ { f = $1; s = $5; l = $9 }
        want && /Used [0-9]+ registers/ { match($0, /Used [0-9]+/); printf "%-10s %s  %3s regs  frame %5s  spill stores %4s  loads %4s\n", n, c, substr($0, RSTART + 5, RLENGTH - 5), f, s, l; want = 0 }
    ' "$out/obj/$1/ptxas.log"
}

jobs_max=${JOBS:-2}
names=()
fail=0
for v in "${variants[@]}"; do
    name=${v%%=*}
    names+=("$name")
    build_one "$name" "${v#*=}" &
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || fail=1; done
done
for p in $(jobs -p); do wait "$p" || fail=1; done
[ $fail -eq 0 ] || { echo "$0: a variant failed" >&2; exit 1; }

: > "$out/ptxas.txt"
for name in "${names[@]}"; do summary "$name" >> "$out/ptxas.txt"; done
cat "$out/ptxas.txt"
echo
for name in "${names[@]}"; do
    echo "$out/cuzk-bench-$name msm --backend cuda --curve g2 --log 24 --scalars device --reps 5"
done
