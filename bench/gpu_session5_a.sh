#!/usr/bin/env bash
# Prepared at the end of session 4 for session 5's first device call (bench/NOTES.md,
# "Next"): KDA and GLA tuned at L = 8 and 32 (no entries beyond batch 1 yet), the
# speculative configurations' verify and fold tuned at T_MAX = 8 (the fold for the first
# time), the verify bench with those tables, then the suite at L = 8, 16, 32. Tuned in
# place (generated/ on the device); the tables come back in data.tgz.
source "$(dirname "$0")/gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
for v in kda gla; do
    timeout 110 python3 -m replaygen tune --variant $v --L 8,32 --batches 8,64,256,512 --budget-s 80 \
        > "$OUT/tune-$v-L8-32.log" 2>&1
done
for v in gdn mamba2; do
    timeout 110 python3 -m replaygen tune --variant $v --L 16 --max-drafts 8 --batches 256,512 \
        --budget-s 80 > "$OUT/tune-$v-T8.log" 2>&1
done
grep -h "replay_decode\|verify\|fold " "$OUT"/tune-*.log | grep -v "^phase" | cut -c1-150
mkdir -p "$OUT/tables" && for v in gdn mamba2 kda gla; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
timeout 90 python3 bench/verify_bench.py --out "$OUT/verify" > "$OUT/verify.log" 2>&1
tail -12 "$OUT/verify.log"
timeout 170 python3 -m replaygen bench --L 8,16,32 --budget-s 140 --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "batch=256\|batch=1 " "$OUT/bench.log"
tar czf "$OUT/data.tgz" -C "$OUT" tables verify bench 2>/dev/null
rm -rf "$OUT/tables" "$OUT/verify" "$OUT/bench"
ls "$OUT"
