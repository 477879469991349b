#!/usr/bin/env bash
# Session 51, any GPU, <= 6.5 min. Issue 3, verify_folds, two changes A/B'd in one run:
# plan.DRAFTS_IN_PLACE (KDA, GLA: a folding verify writes its drafts at the ring's start,
# the commit moves nothing) and plan.QUEUE_FOLDS (the folding launch takes the rows the
# plain launch queued, on a grid sized to the GPU: no idle programs).
#  1. the GPU-only verify_folds tests (races between a program's warps);
#  2. bench/spec_breakdown.py for KDA at T = 8, staggered (the issue's step): the default
#     protocol, verify_folds, each change off, both off (session 50's kernels);
#  3. spec_bench's check and row for KDA and GLA with --verify-folds;
#  4. with time left, --in-phase for KDA (verify_folds and session 50's).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
left() { echo $(( 370 - SECONDS )); }
cap() { local l; l=$(left); echo $(( l < $1 ? l : $1 )); }
timeout "$(cap 90)" python3 -m pytest -q -x tests/test_speculative.py \
    -k "verify_folds or several_warps" > "$OUT/pytest_vf.log" 2>&1; echo "pytest rc=$?" >> "$OUT/pytest_vf.log"
tail -3 "$OUT/pytest_vf.log"
timeout "$(cap 180)" python3 bench/spec_breakdown.py --variants kda --drafts 8 --cycles 10 \
    --out "$OUT/staggered" > "$OUT/staggered.log" 2>&1
cut -c1-220 "$OUT/staggered/spec_breakdown.md" 2>/dev/null || tail -5 "$OUT/staggered.log"
[ "$(left)" -gt 50 ] && timeout "$(cap 130)" python3 bench/spec_bench.py --variants kda,gla --drafts 8 \
    --batches 256 --verify-folds --skip-accuracy --out "$OUT/spec_vf" > "$OUT/spec_vf.log" 2>&1
grep -B2 -A4 "^| variant | batch" "$OUT/spec_vf/spec_bench.md" 2>/dev/null | cut -c1-250
[ "$(left)" -gt 60 ] && timeout "$(cap 120)" python3 bench/spec_breakdown.py --variants kda --drafts 8 \
    --cycles 10 --in-phase --protocols "verify folds,vf as session 50" --out "$OUT/inphase" > "$OUT/inphase.log" 2>&1
cut -c1-220 "$OUT/inphase/spec_breakdown_in_phase.md" 2>/dev/null
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
