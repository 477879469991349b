#!/usr/bin/env bash
# Session 3, first device call: the whole test suite on CUDA (xdist, in the background),
# the 32K-token precision error study (issue 4) in the foreground, then ncu profiles of
# the decode kernels on real geometries. Everything lands in $OUT (at most 8 files).
set -o pipefail
export PYTHONUNBUFFERED=1 REPLAYGEN_EXAMPLES=${REPLAYGEN_EXAMPLES:-1}
OUT=${OUT:-bench/results/latest}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
python3 -m pip list 2>/dev/null | grep -iE '^(torch|triton|hypothesis|pytest-xdist|matplotlib) ' >> "$OUT/gpu.txt"
( timeout "${PYTEST_TIMEOUT:-300}" python3 -m pytest -q tests -p no:cacheprovider -n 6 \
    -k "not compile_for_sm90" > "$OUT/pytest-cuda.log" 2>&1; echo "pytest exit $?" >> "$OUT/pytest-cuda.log" ) &
timeout "${ACC_TIMEOUT:-300}" python3 -m replaygen accuracy --variant gdn --tokens 32768 --rows 32 \
    --modes shared-fp8,shared-nvfp4,fp32+fp8,fp32+fp8col,fp32+fp8tile,fp32+nvfp4,fp16sr+nvfp4,bf16sr+fp8,fp16sr,fp16 \
    --budget-s "${ACC_BUDGET:-250}" --out "$OUT/acc" > "$OUT/acc.log" 2>&1
echo "accuracy exit $?" >> "$OUT/acc.log"
wait
tail -5 "$OUT/pytest-cuda.log"; tail -5 "$OUT/acc.log"
NCU="ncu --clock-control none -k regex:decode --launch-skip 18 --launch-count 3 --section SpeedOfLight \
  --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats \
  --section SchedulerStats"
for v in gdn kda; do
    timeout 100 $NCU python3 bench/profile_workload.py $v > "$OUT/ncu-$v.txt" 2>&1
done
tail -3 "$OUT"/ncu-*.txt
tar czf "$OUT/acc.tgz" -C "$OUT" acc && rm -rf "$OUT/acc"
ls -la "$OUT"
