#!/usr/bin/env bash
# Session 6, second device call. The FP8 read copy's non-flush decode through a tensor-core
# product (fp16 chunk x fp16 probes; call 1's ncu: the broadcast sums made it issue-bound at
# 38% of DRAM bandwidth, 7.3K instructions per program): fixed launches compared
# (precision_bench --compare), the decode re-tuned (the kernel changed: the committed FP8
# entries are stale), the tuned timings; and ncu of GDN's T = 8 verify (call 1 skipped
# both of its launches: skip 1, not 2, with one kernel in the regex).
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
if command -v ncu >/dev/null; then
    timeout 100 ncu --clock-control none -k regex:verify_kernel --launch-skip 1 --launch-count 1 \
        --section SpeedOfLight --section WarpStateStats --section SourceCounters \
        --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
        --import-source yes -o "$OUT/gdn-verify" -f \
        python3 bench/profile_workload.py gdn --config qwen3.5-4b --max-drafts 8 > "$OUT/ncu.log" 2>&1
    ncu -i "$OUT/gdn-verify.ncu-rep" --page details > "$OUT/ncu-gdn-verify.txt" 2>&1
    ncu -i "$OUT/gdn-verify.ncu-rep" --page source --csv --print-source sass > "$OUT/gdn-verify-source.csv" 2>&1
    grep -E "Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occ|Spilling Req|Cycles Per Issued" "$OUT/ncu-gdn-verify.txt"
fi
timeout 130 python3 bench/precision_bench.py --out "$OUT/prec-compare" --variants gdn,mamba2 \
    --checks fp32+fp8row --compare --budget-s 90 > "$OUT/prec-compare.log" 2>&1
grep "fp8row\|conventional\|| fp32 |" "$OUT/prec-compare.log" | tail -22
for vc in "gdn qwen3.5-4b" "mamba2 nemotron3-nano-4b"; do
    set -- $vc
    timeout 170 python3 -m replaygen tune --variant "$1" --config "$2" --L 16 --read-dtype fp8 \
        --kernels replay_decode --batches 256,512 --budget-s 130 >> "$OUT/tune.log" 2>&1
done
grep "replay_decode\|phase\|budget" "$OUT/tune.log"
mkdir -p "$OUT/tables" && for v in gdn mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
timeout 80 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+fp8row > "$OUT/prec.log" 2>&1
grep "fp8row\|conventional\|| fp32 |" "$OUT/prec.log" | tail -8
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables prec prec-compare *.log *.txt *.ncu-rep *.csv 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
ls "$OUT"
