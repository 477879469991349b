#!/usr/bin/env bash
# Session 6, third device call: the FP8 row read copies' decode re-tuned with the wider
# phase 4 (every launch within 1.5x of each batch's best gets a separate-flush trial; the
# three fastest fused ones missed GDN's [64, 32]/w1: 0.123 ms measured vs 0.139 tuned),
# Mamba-2 Nano's fp32 decode through the same phase 4 (issue 5: 1.67x, target 1.72x), and
# the timings with those tables (precision_bench; the suite for Mamba-2).
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
tune() {   # variant, config, budget, extra arguments...
    local v=$1 c=$2 b=$3; shift 3
    timeout $((b + 40)) python3 -m replaygen tune --variant "$v" --config "$c" --L 16 \
        --kernels replay_decode --batches 256,512 --budget-s "$b" "$@" >> "$OUT/tune.log" 2>&1
}
tune gdn qwen3.5-4b 120 --read-dtype fp8
tune mamba2 nemotron3-nano-4b 120 --read-dtype fp8
tune mamba2 nemotron3-nano-4b 100
grep "replay_decode\|phase\|budget" "$OUT/tune.log"
mkdir -p "$OUT/tables" && for v in gdn mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
timeout 80 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+fp8row > "$OUT/prec.log" 2>&1
grep "fp8row\|conventional\|| fp32 |" "$OUT/prec.log" | tail -8
timeout 90 python3 -m replaygen bench --variants mamba2 --L 16 --batches 256,512 --budget-s 70 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "L=" "$OUT/bench.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables prec bench *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
ls "$OUT"
