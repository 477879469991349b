#!/usr/bin/env bash
# Session 4, second device call: with the pipelined key-chunk streams and the new tables,
# tune Mamba-2's verify at T_MAX = 8 (in place, so the verify bench uses it), the verify
# bench (issue 3), the read-copy bench (issue 4), the split check (KDA's value-tile split
# for the first time), and an ncu source-level profile of GDN's non-flush step.
set -o pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-bench/results/latest}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
timeout 80 python3 -m replaygen tune --variant mamba2 --L 16 --max-drafts 8 --batches 256,512 \
    --budget-s 55 > "$OUT/tune-verify-mamba2.log" 2>&1
tail -6 "$OUT/tune-verify-mamba2.log"
cp generated/mamba2/tuning.json "$OUT/mamba2-tuning.json"
timeout 150 python3 bench/verify_bench.py --out "$OUT/verify" > "$OUT/verify.log" 2>&1
tail -30 "$OUT/verify.log"
timeout 140 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+fp8row,fp32+nvfp4 --compare --budget-s 95 > "$OUT/prec.log" 2>&1
tail -40 "$OUT/prec.log"
timeout 60 python3 bench/split_check.py --out "$OUT/split_check.json" --variants kda > "$OUT/split.log" 2>&1
tail -8 "$OUT/split.log"
if command -v ncu >/dev/null; then
    timeout 100 ncu --clock-control none -k regex:replay_decode --launch-skip 17 --launch-count 1 \
        --section WarpStateStats --section SourceCounters --section MemoryWorkloadAnalysis \
        --section Occupancy --import-source yes -o "$OUT/gdn" -f \
        python3 bench/profile_workload.py gdn > "$OUT/ncu.log" 2>&1
    ncu -i "$OUT/gdn.ncu-rep" --page details > "$OUT/ncu-details.txt" 2>&1
    ncu -i "$OUT/gdn.ncu-rep" --page source --csv --print-source sass > "$OUT/ncu-source.csv" 2>&1
    tail -3 "$OUT/ncu.log"; grep -i "stall\|occupancy\|registers" "$OUT/ncu-details.txt" | head -30
fi
tar czf "$OUT/data.tgz" -C "$OUT" verify prec ncu-source.csv gdn.ncu-rep 2>/dev/null
rm -rf "$OUT/verify" "$OUT/prec" "$OUT/ncu-source.csv" "$OUT/gdn.ncu-rep"
ls -la "$OUT"
