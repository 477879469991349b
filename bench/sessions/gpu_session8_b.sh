#!/usr/bin/env bash
# Session 8, second device call: the NVFP4 read-copy decode (fp32 checkpoint; GDN 4B,
# Mamba-2 Nano) re-tuned at batch 256 for the new key-chunk kernel, with tuner phase 5
# (the separate fold launch's warps, Launch.fold_warps); precision_bench's timings with
# the new tables; ncu of one staggered GDN NVFP4 step (the decode and its fold launch).
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
for vc in "gdn qwen3.5-4b" "mamba2 nemotron3-nano-4b"; do
    set -- $vc
    timeout 150 python3 -m replaygen tune --variant "$1" --config "$2" --L 16 \
        --read-dtype nvfp4 --kernels replay_decode --batches 256 --budget-s 120 >> "$OUT/tune.log" 2>&1
done
grep "replay_decode \|phase\|budget" "$OUT/tune.log"
mkdir -p "$OUT/tables" && for v in gdn mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
timeout 130 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+nvfp4 > "$OUT/prec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/prec/precision_bench.md"; grep -c "ok\": false" "$OUT/prec.log"
if command -v ncu >/dev/null; then
    timeout 60 ncu --clock-control none --profile-from-start off -k regex:"fold_kernel|replay_decode" \
        --launch-count 2 --section SpeedOfLight --section WarpStateStats --section SourceCounters \
        --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
        --section SchedulerStats --import-source yes -o "$OUT/gdn-nvfp4-step" -f \
        python3 bench/profile_workload.py gdn --config qwen3.5-4b --read-dtype nvfp4 --staggered \
        > "$OUT/ncu-gdn-nvfp4-step.log" 2>&1
    ncu -i "$OUT/gdn-nvfp4-step.ncu-rep" --page details > "$OUT/ncu-gdn-nvfp4-step.txt" 2>&1
    tail -1 "$OUT/ncu-gdn-nvfp4-step.log"
    grep -E "^  [a-z_]+kernel|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occ|Eligible Warps|No Eligible|Cycles Per Issued" "$OUT/ncu-gdn-nvfp4-step.txt"
fi
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables prec *.log *.txt *.ncu-rep 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
