#!/usr/bin/env bash
# Session 50, any GPU, one call of <= 9.5 min. On an H200: gpu_session49_f.sh (issue 3's
# rows of every variant and KDA's T = 8 verify re-swept there, ~5-6 min), then as much of
# gpu_session49_h.sh as fits. Elsewhere: gpu_session49_h.sh (KDA's verify at 3/4/5 stages
# and the z-sum window at 4/5, then KDA's issue-3 row with the bandwidth table), then
# gpu_session50_b.sh (ncu of KDA's folding verify launch).
# Each script's output comes back in its own folder ($OUT/f, $OUT/h, $OUT/b), each with data.tgz.
here="$(dirname "$0")"
nvidia-smi --query-gpu=name --format=csv,noheader
top=${OUT:-bench/results/latest}
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    OUT=$top/f bash "$here/gpu_session49_f.sh"
    echo "49_f done at ${SECONDS}s"
    OUT=$top/h timeout $(( 565 - SECONDS )) bash "$here/gpu_session49_h.sh"
else
    OUT=$top/h bash "$here/gpu_session49_h.sh"
    echo "49_h done at ${SECONDS}s"
    OUT=$top/b timeout $(( 565 - SECONDS )) bash "$here/gpu_session50_b.sh"
fi
echo "done at ${SECONDS}s"
