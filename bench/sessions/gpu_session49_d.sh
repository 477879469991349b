#!/usr/bin/env bash
# Session 49, any GPU, one call of ~3 min (issue 3): where KDA's T = 8 verify waits now,
# after session 48's probe-row head and solve by products. ncu of the verify (every row at
# n = 8 committed records, T = 8 drafts: profile_workload.py --verify-at 8) at the table's
# launch: duration, DRAM throughput, occupancy, issue rate, and stall samples per SASS line
# (split at the first cp.async into head and stream by bench/ncu_phases.py).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if command -v ncu >/dev/null; then
    timeout 300 ncu --clock-control none -k regex:"verify_kernel" --launch-skip 1 --launch-count 1 \
        --section SpeedOfLight --section WarpStateStats --section SourceCounters --section Occupancy \
        --section LaunchStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
        --section SchedulerStats --import-source yes -o "$OUT/kda-verify" -f \
        python3 bench/profile_workload.py kda --config kimi-linear-48b --max-drafts 8 --verify-at 8 > "$OUT/ncu.log" 2>&1
    ncu -i "$OUT/kda-verify.ncu-rep" --page details > "$OUT/ncu-kda-verify.txt" 2>&1
    ncu -i "$OUT/kda-verify.ncu-rep" --page source --csv --print-source sass > "$OUT/ncu-kda-verify-source.csv" 2>&1
    python3 bench/ncu_phases.py "$OUT/ncu-kda-verify-source.csv" --top 25 > "$OUT/ncu-phases.txt" 2>&1
    gzip -9 "$OUT/ncu-kda-verify-source.csv"
    grep -E "Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occ|Issue Slots Busy|Warp Cycles Per Issued" "$OUT/ncu-kda-verify.txt" | head -20
    head -40 "$OUT/ncu-phases.txt"
fi
rm -f "$OUT/kda-verify.ncu-rep"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
