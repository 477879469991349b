#!/usr/bin/env bash
# Session 51, any GPU, <= 9.5 min. On an H200 first: gpu_session49_f.sh (issue 3's rows of
# every variant and KDA's T = 8 verify re-swept there) into $OUT/f. Then, while time is
# left (issue 3, verify_folds):
#  1. the GPU-only verify_folds tests (races between a program's warps), with the folding
#     verify's drafts written at the ring's start (plan.DRAFTS_IN_PLACE, KDA and GLA);
#  2. bench/spec_breakdown.py --in-phase for KDA and GDN at T = 8: every row at the same
#     point of the cycle, so each verify_folds launch serves all rows or none: what a
#     launch of only exiting programs costs, each launch with every row working, and the
#     commit with and without record moves (KDA: drafts in place against moved);
#  3. the same staggered (the issue's step) for KDA, and spec_bench's check and row.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if grep -q "H200" "$OUT/gpu.txt"; then
    OUT=$OUT/f bash "$(dirname "$0")/gpu_session49_f.sh"
fi
left() { echo $(( 560 - SECONDS )); }
timeout $(( $(left) < 120 ? $(left) : 120 )) python3 -m pytest -q -x tests/test_speculative.py \
    -k "verify_folds or several_warps" > "$OUT/pytest_vf.log" 2>&1; echo "pytest rc=$?" >> "$OUT/pytest_vf.log"
tail -3 "$OUT/pytest_vf.log"
[ "$(left)" -gt 60 ] && timeout $(( $(left) < 200 ? $(left) : 200 )) python3 bench/spec_breakdown.py \
    --variants kda,gdn --drafts 8 --in-phase --cycles 10 --out "$OUT/inphase" > "$OUT/inphase.log" 2>&1
cut -c1-200 "$OUT/inphase/spec_breakdown_in_phase.md" 2>/dev/null
[ "$(left)" -gt 60 ] && timeout $(( $(left) < 120 ? $(left) : 120 )) python3 bench/spec_breakdown.py \
    --variants kda --drafts 8 --cycles 10 --out "$OUT/staggered" > "$OUT/staggered.log" 2>&1
cut -c1-200 "$OUT/staggered/spec_breakdown.md" 2>/dev/null
[ "$(left)" -gt 40 ] && timeout "$(left)" python3 bench/spec_bench.py --variants kda,gla --drafts 8 \
    --batches 256 --verify-folds --skip-accuracy --out "$OUT/spec_vf" > "$OUT/spec_vf.log" 2>&1
grep -A4 "^| variant | batch" "$OUT/spec_vf/spec_bench.md" 2>/dev/null | cut -c1-250
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name "*_tuning.json" -delete && mv /tmp/data.tgz "$OUT/"
