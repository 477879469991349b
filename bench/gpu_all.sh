#!/usr/bin/env bash
# The one device call: the test suite on CUDA, then bench/gpu_check.py (real geometries:
# correctness against the float64 reference, then timings). Logs and JSON go to $OUT.
set -o pipefail
export PYTHONUNBUFFERED=1 REPLAYGEN_EXAMPLES=${REPLAYGEN_EXAMPLES:-1}
OUT=${OUT:-bench/results/latest}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
# The sm_90 compile test is skipped here: on the GPU every kernel really compiles.
timeout "${PYTEST_TIMEOUT:-330}" python3 -m pytest -q tests -p no:cacheprovider \
    -k "not compile_for_sm90" 2>&1 | tee "$OUT/pytest-cuda.log" | tail -25
timeout "${CHECK_TIMEOUT:-250}" python3 bench/gpu_check.py --out "$OUT" 2>&1 \
    | tee "$OUT/gpu_check.log" | grep -v '^CHECK\|^BENCH'
