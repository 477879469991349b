#!/usr/bin/env bash
# Session 5, fourth device call: the FP8 row read copies' decode tuned through all four
# phases (`--kernels replay_decode`: call 3's sweep spent its budget on the conventional
# and fold kernels and stopped after phase 1; phase 4 now tries the three fastest launches
# per batch with the flush separate), precision_bench's timings with those tables, and
# the issue-5 suite for KDA at L = 8 and 32 with call 2's tables.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
timeout 140 python3 -m replaygen tune --variant gdn --config qwen3.5-4b --L 16 --read-dtype fp8 \
    --kernels replay_decode --batches 256,512 --budget-s 100 > "$OUT/tune-fp8.log" 2>&1
timeout 140 python3 -m replaygen tune --variant mamba2 --config nemotron3-nano-4b --L 16 \
    --read-dtype fp8 --kernels replay_decode --batches 256,512 --budget-s 100 >> "$OUT/tune-fp8.log" 2>&1
grep "replay_decode\|phase\|budget" "$OUT/tune-fp8.log"
mkdir -p "$OUT/tables" && for v in gdn mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
timeout 90 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+fp8row > "$OUT/prec.log" 2>&1
grep "fp8row\|conventional\|| fp32 |" "$OUT/prec.log" | tail -8
timeout 80 python3 -m replaygen bench --variants kda --L 8,32 --batches 256,512 --budget-s 60 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "L=" "$OUT/bench.log"
tar czf "$OUT/data.tgz" -C "$OUT" tables prec bench 2>/dev/null
rm -rf "$OUT/tables" "$OUT/prec" "$OUT/bench"
ls "$OUT"
