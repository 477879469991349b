#!/usr/bin/env bash
# Session 6, first device call: where the time goes now (ncu, with SASS source) in GDN's
# T = 8 verify after session 5's factored probes (257 -> 234 us, still 255 registers at
# one warp) and in the FP8 row read copy's non-flush decode (GDN 0.091 ms: 44% of its
# bytes bound; Mamba-2 0.163); then the FP8 decode re-tuned with the wider phase 4
# (every launch within 1.5x of the best, with the flush separate) for all four
# geometries (the 122B / Super geometries had no FP8 tables), Mamba-2 Nano's fp32 decode
# through the same phase 4, and precision_bench's timings with the new tables.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
profile() {   # name, kernel regex, launch-skip, launch-count, profile_workload arguments...
    local name=$1 regex=$2 skip=$3 count=$4; shift 4
    timeout 100 ncu --clock-control none -k regex:"$regex" --launch-skip "$skip" \
        --launch-count "$count" --section SpeedOfLight --section WarpStateStats \
        --section SourceCounters --section MemoryWorkloadAnalysis --section Occupancy \
        --section LaunchStats --import-source yes -o "$OUT/$name" -f \
        python3 bench/profile_workload.py "$@" > "$OUT/ncu-$name.log" 2>&1
    ncu -i "$OUT/$name.ncu-rep" --page details > "$OUT/ncu-$name.txt" 2>&1
    ncu -i "$OUT/$name.ncu-rep" --page source --csv --print-source sass > "$OUT/ncu-$name-source.csv" 2>&1
    tail -1 "$OUT/ncu-$name.log"
    grep -E "^  [a-z_]+kernel|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occ|Block Limit Reg|Spilling Req|Cycles Per Issued" "$OUT/ncu-$name.txt"
}
if command -v ncu >/dev/null; then
    profile gdn-verify "verify_kernel" 2 1 gdn --config qwen3.5-4b --max-drafts 8
    profile gdn-fp8-decode "replay_decode_kernel" 17 1 gdn --config qwen3.5-4b --read-dtype fp8
    profile mamba2-fp8-decode "replay_decode_kernel" 17 1 mamba2 --config nemotron3-nano-4b --read-dtype fp8
fi
tune() {   # variant, config, budget, batches, extra arguments...
    local v=$1 c=$2 b=$3 batches=$4; shift 4
    timeout $((b + 40)) python3 -m replaygen tune --variant "$v" --config "$c" --L 16 \
        --kernels replay_decode --batches "$batches" --budget-s "$b" "$@" >> "$OUT/tune.log" 2>&1
}
tune gdn qwen3.5-4b 70 64,256,512 --read-dtype fp8
tune gdn qwen3.5-122b-a10b 60 256,512 --read-dtype fp8
tune mamba2 nemotron3-nano-4b 70 64,256,512 --read-dtype fp8
tune mamba2 nemotron3-super-120b 60 256,512 --read-dtype fp8
tune mamba2 nemotron3-nano-4b 60 256,512
grep "replay_decode\|phase 4\|budget" "$OUT/tune.log"
mkdir -p "$OUT/tables" && for v in gdn mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
timeout 90 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+fp8row > "$OUT/prec.log" 2>&1
grep "fp8row\|conventional\|| fp32 |" "$OUT/prec.log" | tail -8
tar czf "$OUT/ncu-data.tgz" -C "$OUT" $(cd "$OUT" && ls *.ncu-rep *-source.csv 2>/dev/null)
rm -f "$OUT"/*.ncu-rep "$OUT"/*-source.csv
tar czf "$OUT/data.tgz" -C "$OUT" tables prec 2>/dev/null
rm -rf "$OUT/tables" "$OUT/prec"
ls "$OUT"
