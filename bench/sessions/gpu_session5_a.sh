#!/usr/bin/env bash
# Prepared at the end of session 4 for session 5's first device call (bench/NOTES.md,
# version 10 and "Next"): every geometry re-tuned at L = 16 with phase 4 (the decode's
# flush in a separate fold launch: the prediction to check), the speculative
# configurations' verify and fold at T_MAX = 8 (the fold for the first time), then the
# issue-5 suite at L = 16 and the verify bench with those tables. Tuned in place
# (generated/ on the device); the tables come back in data.tgz.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
timeout 260 python3 -m replaygen tune --all --L 16 --budget-s 210 > "$OUT/tune-L16.log" 2>&1
timeout 110 python3 -m replaygen tune --all --L 16 --max-drafts 8 --batches 256,512 --budget-s 80 \
    > "$OUT/tune-T8.log" 2>&1
grep -h "replay_decode\|verify \|fold " "$OUT"/tune-*.log | grep -v "^phase" | cut -c1-160
mkdir -p "$OUT/tables" && for v in gdn mamba2 kda gla; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
timeout 80 python3 -m replaygen bench --L 16 --budget-s 60 --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "L=16" "$OUT/bench.log"
timeout 90 python3 bench/verify_bench.py --out "$OUT/verify" > "$OUT/verify.log" 2>&1
tail -12 "$OUT/verify.log"
tar czf "$OUT/data.tgz" -C "$OUT" tables verify bench 2>/dev/null
rm -rf "$OUT/tables" "$OUT/verify" "$OUT/bench"
ls "$OUT"
