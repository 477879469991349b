#!/usr/bin/env bash
# Session 50, any GPU, one call of <= 9.5 min. On an H200: gpu_session49_f.sh (issue 3's
# rows of every variant and KDA's T = 8 verify re-swept there, ~5-6 min), then as much of
# gpu_session49_h.sh as fits. Elsewhere: gpu_session50_c.sh (the folding verify launch
# with its probes reading C: template A/B, then swept and issue 3's verify_folds row).
# Each script's output comes back in its own folder ($OUT/f, $OUT/h, $OUT/c), each with data.tgz.
here="$(dirname "$0")"
nvidia-smi --query-gpu=name --format=csv,noheader
top=${OUT:-bench/results/latest}
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    OUT=$top/f bash "$here/gpu_session49_f.sh"
    echo "49_f done at ${SECONDS}s"
    OUT=$top/h timeout $(( 565 - SECONDS )) bash "$here/gpu_session49_h.sh"
else
    OUT=$top/c timeout 565 bash "$here/gpu_session50_c.sh"
fi
echo "done at ${SECONDS}s"
