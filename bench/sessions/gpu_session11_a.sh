#!/usr/bin/env bash
# Session 11, first device call: (1) how exactly each decode structure reads an NVFP4 /
# FP8 read copy on the GPU (the key-chunk read's extra error in session 10's study);
# (2) ncu of the staggered decode step (GDN 4B and Mamba-2 Nano fp32: issue 5's last 2%;
# GDN fp32 + NVFP4's decode and fold launches: issue 4).
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
timeout 200 python3 bench/read_copy_exactness.py --variants gdn,mamba2 --reads nvfp4 --rows 32 \
    --steps 3 --out "$OUT/exact-nvfp4.json" > "$OUT/exact.log" 2>&1
timeout 80 python3 bench/read_copy_exactness.py --variants gdn --reads fp8 --rows 32 \
    --steps 3 --out "$OUT/exact-fp8.json" >> "$OUT/exact.log" 2>&1
cat "$OUT/exact.log" | cut -c1-400
SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis"
prof() {   # prof NAME KERNEL-REGEX VARIANT READ
    timeout 120 ncu --clock-control none -k "regex:$2" --launch-skip 17 --launch-count 1 $SECTIONS \
        -o "$OUT/$1" python3 bench/profile_staggered.py "$3" "$4" 3 > "$OUT/ncu-$1.log" 2>&1
    ncu -i "$OUT/$1.ncu-rep" --page details > "$OUT/ncu-$1.txt" 2>&1
    echo "== $1"; tail -2 "$OUT/ncu-$1.log"
    grep -E "^  [a-z_]+kernel|Duration|DRAM Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Theoretical Occ|Block Limit|Waves Per SM|Eligible Warps|No Eligible|Issued Warp|Stall|Dynamic Shared|Static Shared" "$OUT/ncu-$1.txt" | head -40
}
prof gdn-fp32-decode replay_decode gdn none
prof nano-fp32-decode replay_decode mamba2 none
prof gdn-nvfp4-decode replay_decode gdn nvfp4
prof gdn-nvfp4-fold fold_kernel gdn nvfp4
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.json *.log *.txt *.ncu-rep 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
