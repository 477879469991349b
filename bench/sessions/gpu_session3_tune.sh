#!/usr/bin/env bash
# Session 3, tuning call: every committed geometry at L = 16 (all five batch buckets, the
# three phases: tiles and warps, stages, value-axis split), then L = 8 and 32 (batches 1, 8,
# 64, 256). Tables land in $OUT/generated/<variant>/tuning.json (merge into generated/).
set -o pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-bench/results/latest}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
timeout "${TUNE16_TIMEOUT:-260}" python3 -m replaygen tune --all --L 16 --budget-s "${TUNE16_BUDGET:-200}" \
    --out "$OUT/generated" > "$OUT/tune-L16.log" 2>&1
tail -4 "$OUT/tune-L16.log"
timeout "${TUNE832_TIMEOUT:-280}" python3 -m replaygen tune --all --L 8,32 --batches 1,8,64,256 \
    --budget-s "${TUNE832_BUDGET:-220}" --out "$OUT/generated" > "$OUT/tune-L8-32.log" 2>&1
tail -4 "$OUT/tune-L8-32.log"
tar czf "$OUT/generated.tgz" -C "$OUT" generated && rm -rf "$OUT/generated"
ls -la "$OUT"
