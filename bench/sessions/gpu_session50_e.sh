#!/usr/bin/env bash
# Session 50, any GPU, ~3 min (issue 3), after the folding verify launch took the probe-row
# head (call B: 0.633 -> 0.553 ms for every row, verify_folds step 1.32x -> 1.19x a decode
# step on the H100): where its time goes now. 1. ncu of that launch (gpu_session50_b.sh)
# into $OUT/ncu. 2. bench/spec_breakdown.py for KDA at T = 8, both protocols: each kernel's
# share of a step (the commit's record moves under verify_folds).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
OUT=$OUT/ncu timeout 250 bash "$(dirname "$0")/gpu_session50_b.sh"
timeout 200 python3 bench/spec_breakdown.py --variants kda --drafts 8 --batch 256 --out "$OUT/breakdown" \
    > "$OUT/breakdown.log" 2>&1
cat "$OUT/breakdown/spec_breakdown.md" | head -40
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
