#!/usr/bin/env bash
# Session 50, any GPU, <= 9.5 min: on an H200, gpu_session49_f.sh (issue 3's rows of every
# variant, KDA's T = 8 verify re-swept there; ~5-6 min) into $OUT/f, then as much of
# gpu_session50_f.sh as fits into $OUT/g; elsewhere gpu_session50_f.sh alone (prototype g
# of the folding verify launch) into $OUT/g.
here="$(dirname "$0")"
top=${OUT:-bench/results/latest}
nvidia-smi --query-gpu=name --format=csv,noheader
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    OUT=$top/f bash "$here/gpu_session49_f.sh"
    echo "49_f done at ${SECONDS}s"
fi
OUT=$top/g timeout $(( 565 - SECONDS )) bash "$here/gpu_session50_f.sh"
echo "done at ${SECONDS}s"
