#!/usr/bin/env bash
# Session 51, any GPU, <= 5 min (the budget's end): gpu_session51_b.sh cut down. Issue 3,
# verify_folds with plan.DRAFTS_IN_PLACE and plan.QUEUE_FOLDS, against session 50's kernels
# (both off) and the default protocol, in one run:
#  1. the GPU-only verify_folds tests (races between a program's warps);
#  2. bench/spec_breakdown.py for KDA at T = 8, staggered (the issue's step);
#  3. spec_bench's check and row for KDA with --verify-folds.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
left() { echo $(( 285 - SECONDS )); }
cap() { local l; l=$(left); echo $(( l < $1 ? l : $1 )); }
timeout "$(cap 70)" python3 -m pytest -q -x tests/test_speculative.py \
    -k "verify_folds or several_warps" > "$OUT/pytest_vf.log" 2>&1; echo "pytest rc=$?" >> "$OUT/pytest_vf.log"
tail -3 "$OUT/pytest_vf.log"
timeout "$(cap 150)" python3 bench/spec_breakdown.py --variants kda --drafts 8 --cycles 8 \
    --protocols "verify folds,vf as session 50,commit folds" \
    --out "$OUT/staggered" > "$OUT/staggered.log" 2>&1
cut -c1-220 "$OUT/staggered/spec_breakdown.md" 2>/dev/null || grep "^RUN" "$OUT/staggered.log" | cut -c1-600
[ "$(left)" -gt 30 ] && timeout "$(left)" python3 bench/spec_bench.py --variants kda --drafts 8 \
    --batches 256 --verify-folds --skip-accuracy --out "$OUT/spec_vf" > "$OUT/spec_vf.log" 2>&1
grep -B2 -A4 "^| variant | batch" "$OUT/spec_vf/spec_bench.md" 2>/dev/null | cut -c1-250
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
