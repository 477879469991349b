#!/usr/bin/env bash
# Session 4, first device call: the decode's stream loops now ask Triton to pipeline them
# (tl.range(num_stages=STREAM_STAGES)). Check on CUDA (decode and precision tests), re-tune
# every geometry at L = 16 (stages 1-4 now matter), tune the verify kernel at T_MAX = 8,
# then the issue-5 suite at L = 16 with the new tables. Tables land in $OUT/generated.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
timeout "${PYTEST_TIMEOUT:-100}" python3 -m pytest -q tests/test_decode.py tests/test_precision.py \
    -p no:cacheprovider -n 8 -x > "$OUT/pytest-cuda.log" 2>&1; echo "pytest exit $?" >> "$OUT/pytest-cuda.log"
tail -3 "$OUT/pytest-cuda.log"
timeout "${TUNE_TIMEOUT:-200}" python3 -m replaygen tune --all --L 16 --budget-s "${TUNE_BUDGET:-165}" \
    --out "$OUT/generated" > "$OUT/tune-L16.log" 2>&1
tail -3 "$OUT/tune-L16.log"
timeout "${VTUNE_TIMEOUT:-80}" python3 -m replaygen tune --variant gdn --L 16 --max-drafts 8 --batches 256,512 \
    --budget-s 55 --out "$OUT/generated" > "$OUT/tune-verify.log" 2>&1
tail -2 "$OUT/tune-verify.log"
timeout "${BENCH_TIMEOUT:-140}" python3 -m replaygen bench --L 16 --batches 1,256 --tuning "$OUT/generated" \
    --budget-s "${BENCH_BUDGET:-110}" --out "$OUT/bench" > "$OUT/bench.log" 2>&1
tail -3 "$OUT/bench.log"
tar czf "$OUT/generated.tgz" -C "$OUT" generated && rm -rf "$OUT/generated"
tar czf "$OUT/bench.tgz" -C "$OUT" bench && rm -rf "$OUT/bench"
ls -la "$OUT"
