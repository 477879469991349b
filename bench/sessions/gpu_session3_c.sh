#!/usr/bin/env bash
# Session 3, third device call: read copies in key chunks (issue 4), cumulative gate
# records for KDA/GLA (issue 5), the L2-prefetch prototype, and the bf16 recurrence study.
set -o pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-bench/results/latest}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
timeout 150 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+fp8row,fp32+nvfp4,fp16sr+nvfp4,bf16sr+fp8row --compare --budget-s 85 > "$OUT/prec.log" 2>&1
timeout 170 python3 bench/channel_gates.py --out "$OUT/cg" > "$OUT/cg.log" 2>&1
timeout 80 python3 bench/proto/prefetch_l2.py --out "$OUT/prefetch.json" > "$OUT/prefetch.log" 2>&1
timeout 120 python3 -m replaygen accuracy --variant gdn --tokens 32768 --rows 32 \
    --modes bf16sr,bf16,fp16sr,fp16 --budget-s 95 --out "$OUT/acc" > "$OUT/acc.log" 2>&1
tar czf "$OUT/data.tgz" -C "$OUT" prec cg acc 2>/dev/null; rm -rf "$OUT/prec" "$OUT/cg" "$OUT/acc"
tail -n 45 "$OUT/prec.log"; tail -n 60 "$OUT/cg.log"; cat "$OUT/prefetch.log"; tail -n 8 "$OUT/acc.log"
