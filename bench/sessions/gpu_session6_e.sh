#!/usr/bin/env bash
# Session 6, fifth device call: the T = 8 verify with its head-level scores from raw rows
# (no [BT, BK] tile of finished probes) and its window solved once before the stream,
# re-tuned with the new phase 2b (register caps 128 / 168: the fastest launch ran at one
# warp and 255 registers, 8 warps per SM); the verify bench with those tables (its checks
# against the value-tile verify and the snapshot path included); the CUDA speculative and
# tuning tests; the Mamba-2 Nano suite row at batch 256 (Workload.settle: call 3's
# first-timed conventional step ran 10% slow).
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
for vc in "gdn qwen3.5-4b" "mamba2 nemotron3-nano-4b"; do
    set -- $vc
    timeout 80 python3 -m replaygen tune --variant "$1" --config "$2" --L 16 --max-drafts 8 \
        --kernels verify --batches 256 --budget-s 50 >> "$OUT/tune.log" 2>&1
done
grep "verify \|phase\|budget" "$OUT/tune.log"
mkdir -p "$OUT/tables" && for v in gdn mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
timeout 95 python3 bench/verify_bench.py --out "$OUT/verify" > "$OUT/verify.log" 2>&1
grep -v "^BENCH" "$OUT/verify.log" | tail -14
timeout 70 python3 -m pytest -q tests/test_speculative.py tests/test_tuning.py -p no:cacheprovider \
    -x -n 8 > "$OUT/pytest-cuda.log" 2>&1
echo "pytest exit $?" >> "$OUT/pytest-cuda.log"; tail -3 "$OUT/pytest-cuda.log"
timeout 45 python3 -m replaygen bench --variants mamba2 --quick --L 16 --batches 256 \
    --budget-s 25 --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "L=" "$OUT/bench.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables verify bench *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
