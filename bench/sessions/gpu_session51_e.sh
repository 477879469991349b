#!/usr/bin/env bash
# Session 51, any GPU, <= 2.5 min (the budget's last minutes): bench/spec_breakdown.py for
# KDA at T = 8, staggered, as many of its verify_folds protocols as finish (each prints its
# RUN line): both of session 51's choices, neither (session 50's kernels), each alone.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 140 python3 bench/spec_breakdown.py --variants kda --drafts 8 --cycles 4 \
    --protocols "verify folds,vf as session 50,vf drafts moved,vf every row's grid" \
    --out "$OUT/staggered" > "$OUT/staggered.log" 2>&1
grep "^RUN" "$OUT/staggered.log" | cut -c1-1200
tail -2 "$OUT/staggered.log"
