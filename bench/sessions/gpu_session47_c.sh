#!/usr/bin/env bash
# Session 47, any GPU, one call of ~8 min, after the fix of the FP8 sweep's compile twice
# (runtime.settle_helper_cache_keys): the probe of gpu_session47_b.sh again (no kernel
# compiled in the timing process expected), then Mamba-2 Nano's FP8 decode re-tuned on
# this card, the whole sweep within TUNE_S (session 47 call 2 took 84 s to time phase 1's
# 41 launches and ended in phase 4e), then issue 4's Mamba-2 table with the new entry.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 120 python3 bench/proto/s47_timing_probe.py --out "$OUT/probe" > "$OUT/probe.log" 2>&1
grep "cycle\|workload" "$OUT/probe.log" | cut -c1-120
tune_decode mamba2 nemotron3-nano-4b fp8 ${TUNE_S:-240}
grep -E "^phase|timed in|over 1 s|budget|replaygen tune:" "$OUT/tune.log" | cut -c1-160
grep -E "read_fp8row__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | tail -2 | cut -c1-260
timeout 150 python3 bench/precision_bench.py --out "$OUT/precision" --variants mamba2 --quick > "$OUT/precision.log" 2>&1
grep -A8 "^| variant | config | decode" "$OUT/precision/precision_bench.md" | cut -c1-250
cp "$OUT/tables/mamba2.json" "$OUT/mamba2_tuning.json" 2>/dev/null
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name mamba2_tuning.json -delete && mv /tmp/data.tgz "$OUT/"
