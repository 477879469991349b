#!/usr/bin/env bash
# Session 3, final device call: the whole test suite on CUDA, then the issue-5 suite with
# the committed tuning tables, then the issue-3 and issue-4 benches. Logs and data in $OUT
# (folders tarred: at most 8 files come back).
set -o pipefail
export PYTHONUNBUFFERED=1 REPLAYGEN_EXAMPLES=${REPLAYGEN_EXAMPLES:-1}
OUT=${OUT:-bench/results/latest}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
if ls bench/wheels/*.whl >/dev/null 2>&1; then   # fla-core and einops: the external baselines
    python3 -m pip install -q --no-deps --no-index bench/wheels/*.whl 2>&1 | tail -3
fi
timeout "${PYTEST_TIMEOUT:-200}" python3 -m pytest -q tests -p no:cacheprovider -n 8 \
    -k "not compile_for_sm90" > "$OUT/pytest-cuda.log" 2>&1; echo "pytest exit $?" >> "$OUT/pytest-cuda.log"
tail -4 "$OUT/pytest-cuda.log"
timeout "${BENCH_TIMEOUT:-240}" python3 -m replaygen bench --budget-s "${BENCH_BUDGET:-200}" \
    --out "$OUT/bench" ${BENCH_ARGS:-} > "$OUT/bench.log" 2>&1
tail -3 "$OUT/bench.log"
if [ -n "${EXTRA:-}" ]; then bash -c "$EXTRA" > "$OUT/extra.log" 2>&1; tail -30 "$OUT/extra.log"; fi
tar czf "$OUT/bench.tgz" -C "$OUT" bench && rm -rf "$OUT/bench"
ls -la "$OUT"
