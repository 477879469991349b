#!/usr/bin/env bash
# Session 12, first device call: the key-chunk decode takes its records' scores once per
# program instead of once per value tile (offline sm_90: [64, 16] and [32, 32] at one
# warp drop from 168 / 148 registers to 128, while [64, 32], which the fused flush's
# tensor-core fold holds at 226, does not move). Re-tune the fp32 decodes of GDN 4B and
# Mamba-2 Nano (smaller chunks may now win) and KDA both ways (its value tiles, last
# tuned before the queued fold, and key chunks forced: their per-tile record work is
# gone), time issue 5's rows, and run the decode tests on the H200.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
tune_decode gdn qwen3.5-4b none 75
tune_decode mamba2 nemotron3-nano-4b none 75
tune_decode kda kimi-linear-48b none 50
tune_decode kda kimi-linear-48b none 55 kchunks
grep -A1 "^configuration\|budget" "$OUT/tune.log" | grep -v "^--"
timeout 125 python3 -m replaygen bench --variants gdn,mamba2,kda --batches 256 --L 16 --budget-s 90 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^| gdn\|^| mamba2\|^| kda" "$OUT/bench/bench.md" | head -8
timeout 60 python3 -m pytest -q -x tests/test_decode.py tests/test_tuning.py \
    -k "real_geometry or tuned_launches" > "$OUT/test_decode.log" 2>&1
tail -2 "$OUT/test_decode.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables bench *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
