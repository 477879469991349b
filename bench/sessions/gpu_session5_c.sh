#!/usr/bin/env bash
# Session 5, third device call. (1) The key-chunk verify with its probes split by sympy
# into factor x raw input (the stream multiplies raw rows, XT's columns take the factors
# once; with one chunk across the key axis the probes are loaded once per program): its
# T = 8 verify re-tuned for GDN and Mamba-2, then the verify bench. (2) The FP8 row read
# copies tuned like the fp32 configurations (phase 4 may now pick the separate flush,
# which precision_bench --compare measured at 2.4x the conventional fp32 step for GDN),
# then precision_bench's timings with those tables. (3) The speculative tests on CUDA.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
for v in gdn mamba2; do
    timeout 80 python3 -m replaygen tune --variant $v --L 16 --max-drafts 8 --batches 256,512 \
        --budget-s 50 > "$OUT/tune-T8-$v.log" 2>&1
    grep "verify " "$OUT/tune-T8-$v.log"
done
timeout 90 python3 bench/verify_bench.py --out "$OUT/verify" > "$OUT/verify.log" 2>&1
tail -12 "$OUT/verify.log"
timeout 110 python3 -m replaygen tune --variant gdn --config qwen3.5-4b --L 16 --read-dtype fp8 \
    --batches 256,512 --budget-s 45 > "$OUT/tune-fp8.log" 2>&1
timeout 80 python3 -m replaygen tune --variant mamba2 --config nemotron3-nano-4b --L 16 --read-dtype fp8 \
    --batches 256,512 --budget-s 45 >> "$OUT/tune-fp8.log" 2>&1
grep "replay_decode" "$OUT/tune-fp8.log"
mkdir -p "$OUT/tables" && for v in gdn mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
timeout 90 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+fp8row > "$OUT/prec.log" 2>&1
grep "fp8row\|conventional\|| fp32 |" "$OUT/prec.log" | tail -8
timeout 100 python3 -m pytest -q tests/test_speculative.py -p no:cacheprovider -x -n 8 > "$OUT/pytest-cuda.log" 2>&1
echo "pytest exit $?" >> "$OUT/pytest-cuda.log"; tail -3 "$OUT/pytest-cuda.log"
tar czf "$OUT/data.tgz" -C "$OUT" tables verify prec 2>/dev/null
rm -rf "$OUT/tables" "$OUT/verify" "$OUT/prec"
ls "$OUT"
