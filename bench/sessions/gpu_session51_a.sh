#!/usr/bin/env bash
# Session 51, any GPU, <= 9 min. On an H200: gpu_session49_f.sh (issue 3's rows of every
# variant and KDA's T = 8 verify re-swept there) into $OUT/f first. Then, on any card:
# bench/spec_breakdown.py --in-phase for KDA and GDN at T = 8, both protocols: every row at
# the same point of the cycle, so each verify_folds launch serves all rows or none. It
# measures what a launch of only exiting programs costs (issue 3, verify_folds: half of
# each launch's programs exit at once in the staggered step), each launch with every
# row working, and the verify_folds commit with and without record moves.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if grep -q "H200" "$OUT/gpu.txt"; then
    OUT=$OUT/f bash "$(dirname "$0")/gpu_session49_f.sh"
fi
timeout 240 python3 bench/spec_breakdown.py --variants kda,gdn --drafts 8 --in-phase \
    --out "$OUT/inphase" > "$OUT/inphase.log" 2>&1
cut -c1-200 "$OUT/inphase/spec_breakdown_in_phase.md"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name "*_tuning.json" -delete && mv /tmp/data.tgz "$OUT/"
