#!/usr/bin/env bash
# Session 13, fourth device call: longer re-tunes of the two launches the pipelined loops
# changed most (KDA's value-tile decode, whose stages now set its stream depth; GDN 4B's
# fused flush), then issue 5's KDA and GDN rows.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
tune_decode kda kimi-linear-48b none 150
tune_decode gdn qwen3.5-4b none 100
grep -A1 "^configuration" "$OUT/tune.log" | grep -v "^--"
timeout 120 python3 -m replaygen bench --variants gdn,kda --batches 256 --L 16 --budget-s 80 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^| gdn\|^| kda" "$OUT/bench/bench.md" | head -4
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables bench *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
