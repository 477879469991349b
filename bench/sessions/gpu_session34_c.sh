#!/usr/bin/env bash
# Prepared in session 34 for session 35: where issue 3's flush share goes. At T = 8, L = 16
# a row of full acceptance folds every third commit (0 -> 8 -> 16 -> a fold of 24 records,
# plan.py's capacity rule), and commit + the amortised flush is 0.115 ms for KDA, 37% of a
# decode step (session 34 call 5): the fold would be ~0.3 ms. ncu of KDA's commit fold (every row accepting all eight
# drafts after L = 16 committed records, so every row folds 24: profile_workload.py --verify-at) at the tabled
# launch: duration against its bytes (a checkpoint read and write, ~0.26 ms at the copy
# bandwidth for 256 rows), DRAM throughput, occupancy, and stall reasons per SASS line.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if command -v ncu >/dev/null; then
    timeout 200 ncu --clock-control none -k regex:"fold_kernel" --launch-skip 1 --launch-count 1 \
        --section SpeedOfLight --section WarpStateStats --section SourceCounters --section Occupancy \
        --section LaunchStats --section MemoryWorkloadAnalysis --import-source yes -o "$OUT/kda-fold" -f \
        python3 bench/profile_workload.py kda --config kimi-linear-48b --max-drafts 8 --verify-at 16 > "$OUT/ncu.log" 2>&1
    ncu -i "$OUT/kda-fold.ncu-rep" --page details > "$OUT/ncu-kda-fold.txt" 2>&1
    ncu -i "$OUT/kda-fold.ncu-rep" --page source --csv --print-source sass > "$OUT/ncu-kda-fold-source.csv" 2>&1
    gzip -9 "$OUT/ncu-kda-fold-source.csv"
    grep -E "Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occ|Block Limit|Grid Size|Block Size" "$OUT/ncu-kda-fold.txt" | head -20
fi
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log *.csv.gz 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
