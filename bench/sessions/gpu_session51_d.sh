#!/usr/bin/env bash
# Session 51, any GPU, <= 3.5 min (the budget's last minutes): gpu_session51_c.sh cut down
# to the A/B and the check. bench/spec_breakdown.py for KDA at T = 8, staggered:
# verify_folds with plan.DRAFTS_IN_PLACE and plan.QUEUE_FOLDS against session 50's kernels
# (both off); then spec_bench's check and row for KDA with --verify-folds.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
left() { echo $(( 200 - SECONDS )); }
timeout "$(( $(left) - 60 ))" python3 bench/spec_breakdown.py --variants kda --drafts 8 --cycles 6 \
    --protocols "verify folds,vf as session 50" --out "$OUT/staggered" > "$OUT/staggered.log" 2>&1
grep "^RUN" "$OUT/staggered.log" | cut -c1-900
[ "$(left)" -gt 20 ] && timeout "$(left)" python3 bench/spec_bench.py --variants kda --drafts 8 \
    --batches 256 --verify-folds --skip-accuracy --out "$OUT/spec_vf" > "$OUT/spec_vf.log" 2>&1
grep -B2 -A4 "^| variant | batch" "$OUT/spec_vf/spec_bench.md" 2>/dev/null | cut -c1-250
tail -3 "$OUT/spec_vf.log"
