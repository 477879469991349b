#!/usr/bin/env bash
# Session 5, second device call: where the verify kernel's time goes (ncu of GDN's and
# Mamba-2's T = 8 verify and the commit's fold at batch 256: the verify is ~0.25 ms for
# GDN and ~0.54 for Mamba-2 against a ~0.14 / 0.24 ms read of their checkpoints, and
# nearly independent of T), the read copies with the decode's flush in a separate launch
# (issue 4, "+sf": version 10's prediction for FP8), and KDA's first tuned tables at L = 8
# and 32 beyond batch 1 (issue 5).
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
profile() {   # name, variant, config
    timeout 120 ncu --clock-control none -k regex:"verify_kernel|fold_kernel" --launch-skip 2 \
        --launch-count 2 --section SpeedOfLight --section WarpStateStats --section SourceCounters \
        --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
        --import-source yes -o "$OUT/$1" -f \
        python3 bench/profile_workload.py "$2" --config "$3" --max-drafts 8 > "$OUT/ncu-$1.log" 2>&1
    ncu -i "$OUT/$1.ncu-rep" --page details > "$OUT/ncu-$1.txt" 2>&1
    ncu -i "$OUT/$1.ncu-rep" --page source --csv --print-source sass > "$OUT/ncu-$1-source.csv" 2>&1
    tail -2 "$OUT/ncu-$1.log"
    grep -E "^  [a-z_]+kernel|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occ|Block Limit" "$OUT/ncu-$1.txt"
}
if command -v ncu >/dev/null; then
    profile gdn-verify gdn qwen3.5-4b
    profile mamba2-verify mamba2 nemotron3-nano-4b
fi
timeout 150 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+fp8row,fp32+nvfp4 --compare --budget-s 100 > "$OUT/prec.log" 2>&1
tail -30 "$OUT/prec.log"
timeout 150 python3 -m replaygen tune --variant kda --L 8,32 --batches 8,64,256,512 --budget-s 110 \
    > "$OUT/tune-kda.log" 2>&1
grep replay_decode "$OUT/tune-kda.log"; mkdir -p "$OUT/tables"; cp generated/kda/tuning.json "$OUT/tables/kda.json"
tar czf "$OUT/data.tgz" -C "$OUT" prec tables gdn-verify.ncu-rep mamba2-verify.ncu-rep \
    ncu-gdn-verify-source.csv ncu-mamba2-verify-source.csv 2>/dev/null
rm -rf "$OUT/prec" "$OUT/tables" "$OUT"/*.ncu-rep "$OUT"/*-source.csv
ls "$OUT"
