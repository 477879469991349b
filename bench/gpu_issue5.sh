#!/usr/bin/env bash
# Issue 5 in one device call (H200): install the carried baseline wheels, tune every
# committed geometry, then run the benchmark suite with those tables. Everything lands in
# $OUT: tune.log, generated/<variant>/tuning.json (copy into generated/ and commit),
# bench/{bench.json,bench.csv,bench.md,speedup.png}, bench.log, gpu.txt.
# Budget: tune <= 4 min, bench <= 5 min; each step has a timeout so one overrun cannot
# cost the other (both write what they have as they go).
set -o pipefail
export PYTHONUNBUFFERED=1
PY=${PYTHON:-python3}
OUT=${OUT:-bench/results/latest}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
if ls bench/wheels/*.whl >/dev/null 2>&1; then   # fla-core and einops: the external baselines
    $PY -m pip install -q --no-deps --no-index bench/wheels/*.whl 2>&1 | tail -3
    # fla imports packaging; install the carried one only where none is installed
    $PY -c 'import packaging' 2>/dev/null || \
        $PY -m pip install -q --no-deps --no-index bench/wheels/if-missing/*.whl 2>&1 | tail -3
fi
$PY -m pip list 2>/dev/null | grep -iE '^(torch|triton|fla-core|einops|matplotlib|vllm) ' | tee -a "$OUT/gpu.txt"
timeout "${TUNE_TIMEOUT:-240}" $PY -m replaygen tune --all --budget-s 200 --out "$OUT/generated" 2>&1 | tee "$OUT/tune.log" | tail -12
timeout "${BENCH_TIMEOUT:-280}" $PY -m replaygen bench --eager --budget-s 220 --tuning "$OUT/generated" \
    --out "$OUT/bench" ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench.log" | tail -40
