#!/usr/bin/env bash
# Session 3, second device call: the key-chunked verify (issue 3), the value-axis split
# of the key-chunked decode (issue 5, small batches), and the read ceiling of the key-chunk
# access pattern. Logs and JSON in $OUT.
set -o pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-bench/results/latest}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
timeout 60 python3 bench/proto/read_ceiling.py --out "$OUT/read_ceiling.json" > "$OUT/read_ceiling.log" 2>&1
timeout 200 python3 bench/verify_bench.py --out "$OUT/verify" > "$OUT/verify.log" 2>&1
timeout 150 python3 bench/split_check.py --out "$OUT/split_check.json" > "$OUT/split.log" 2>&1
tail -n 40 "$OUT/read_ceiling.log" "$OUT/verify.log" "$OUT/split.log"
