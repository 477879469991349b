#!/usr/bin/env bash
# Session 8, first device call: the NVFP4 key-chunk decode with its bytes unpacked into key
# order and each block scale applied to its block's partial sum (CUDA precision tests, then
# precision_bench's timings); the fold launch that follows a decode whose flush is separate,
# at every (warps, stages) of its value tile (fold_launch_bench); ncu of that fold launch
# (one staggered GDN NVFP4 step: 16 of 256 rows fold) and of the grouped T = 8 GDN verify.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
timeout 80 python3 -m pytest -q tests/test_precision.py -p no:cacheprovider \
    -x -n 8 > "$OUT/pytest-cuda.log" 2>&1
echo "pytest exit $?" >> "$OUT/pytest-cuda.log"; tail -3 "$OUT/pytest-cuda.log"
timeout 130 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+nvfp4,fp16sr+nvfp4 > "$OUT/prec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/prec/precision_bench.md"; grep -c "ok\": false" "$OUT/prec.log"
timeout 170 python3 bench/fold_launch_bench.py --out "$OUT/fold" > "$OUT/fold.log" 2>&1
echo "fold_launch_bench exit $?"; cat "$OUT/fold/fold_launch_bench.md" 2>/dev/null || tail -5 "$OUT/fold.log"
profile() {   # name, kernel regex, launch-skip, launch-count, profile_workload arguments...
    local name=$1 regex=$2 skip=$3 count=$4; shift 4
    timeout 60 ncu --clock-control none -k regex:"$regex" --launch-skip "$skip" \
        --launch-count "$count" $NCU_EXTRA --section SpeedOfLight --section WarpStateStats \
        --section SourceCounters --section MemoryWorkloadAnalysis --section Occupancy \
        --section LaunchStats --section SchedulerStats --import-source yes -o "$OUT/$name" -f \
        python3 bench/profile_workload.py "$@" > "$OUT/ncu-$name.log" 2>&1
    ncu -i "$OUT/$name.ncu-rep" --page details > "$OUT/ncu-$name.txt" 2>&1
    ncu -i "$OUT/$name.ncu-rep" --page source --csv --print-source sass > "$OUT/ncu-$name-source.csv" 2>&1
    tail -1 "$OUT/ncu-$name.log"
    grep -E "^  [a-z_]+kernel|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occ|Block Limit Reg|Spilling Req|Cycles Per Issued|Eligible Warps|No Eligible" "$OUT/ncu-$name.txt"
}
if command -v ncu >/dev/null; then
    NCU_EXTRA="--profile-from-start off" profile gdn-nvfp4-fold "fold_kernel|replay_decode" 0 2 \
        gdn --config qwen3.5-4b --read-dtype nvfp4 --staggered
    profile gdn-verify "verify_kernel" 1 1 gdn --config qwen3.5-4b --max-drafts 8
fi
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d prec fold *.log *.txt *.ncu-rep *-source.csv 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
