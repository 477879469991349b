#!/usr/bin/env bash
# Session 23, fourth device call (issue 5): GDN 4B's batch-256, L = 16 decode re-tuned
# with the flush pass of 673b99e (chunks last-first, evict-first stores), then the issue
# 5 suite for GDN at batch 256, L = 16.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
tune_decode gdn qwen3.5-4b none 120
grep "L16__state_fp32__rec" "$OUT/tune.log" | grep replay_decode | tail -2
timeout 60 python3 -m replaygen bench --variants gdn --batches 256 --L 16 --budget-s 40 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^gdn" "$OUT/bench.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log bench tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
