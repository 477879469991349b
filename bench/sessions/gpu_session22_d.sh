#!/usr/bin/env bash
# Session 22, fourth device call (issue 5): the batch-256, L = 16 decode launches of GDN 4B
# and KDA re-tuned with devmath's exp / log in every kernel, then the issue's suite for
# them at batch 256, L = 16 against fla 0.6.0's fused recurrent kernels (carried wheels).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
tune_decode gdn qwen3.5-4b none 75
tune_decode kda kimi-linear-48b none 75
grep "L16__state_fp32__rec" "$OUT/tune.log" | grep replay_decode | tail -4
timeout 150 python3 -m replaygen bench --variants gdn,kda --batches 256 --L 16 --budget-s 110 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
tail -25 "$OUT/bench.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log bench tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
