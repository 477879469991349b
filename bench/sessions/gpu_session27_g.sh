#!/usr/bin/env bash
# Session 27, seventh device call (the last ~4 device minutes): GLA's fp32 decode at
# L = 16 re-tuned at batches 1, 8, 64 and 512 (call 6's audit: every one of those entries
# stale, 1.2-1.4x slower than tabled).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 200 python3 -m replaygen tune --variant gla --config gla-1.3b --L 16 \
    --kernels replay_decode --batches 1,8,64,512 --budget-s 165 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && cp generated/gla/tuning.json "$OUT/tables/gla.json"
grep -E "replay_decode +[0-9]+ |budget" "$OUT/tune.log" | tail -8
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
