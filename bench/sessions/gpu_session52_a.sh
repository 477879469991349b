#!/usr/bin/env bash
# For session 52, any GPU, <= 8 min. Issue 3, verify_folds: session 51's prototype
# (bench/proto/s51_vf_inplace_queue.diff, interpreter-tested, never on a GPU) applied here:
#  - plan.DRAFTS_IN_PLACE (KDA, GLA: GROUP = 1): a folding verify moves its drafts' records
#    to the ring's start itself, at its end, so the commit moves nothing (session 50: the
#    commit's record moves took 0.029 of KDA's 0.495 ms step);
#  - plan.QUEUE_FOLDS: the plain launch queues the folding rows and the folding launch takes
#    them on a grid sized to the GPU, with a register cap (no program exits idle: an empty
#    folding launch took 0.026 ms of KDA's T = 8 step).
#  1. the GPU-only verify_folds tests (races between a program's warps);
#  2. bench/spec_breakdown.py, KDA and GLA, T = 8, staggered: verify_folds with both, with
#     neither (session 50's kernels), each alone, and the default protocol, in one run;
#  3. spec_bench's check and row with --verify-folds (KDA, GLA).
# Land the diff if (1) and (3) pass and (2) wins; else keep it in bench/proto.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
git apply bench/proto/s51_vf_inplace_queue.diff && python3 -m replaygen build --all > /dev/null || exit 1
left() { echo $(( 450 - SECONDS )); }
cap() { local l; l=$(left); echo $(( l < $1 ? l : $1 )); }
timeout "$(cap 100)" python3 -m pytest -q -x tests/test_speculative.py \
    -k "verify_folds or several_warps" > "$OUT/pytest_vf.log" 2>&1; echo "pytest rc=$?" >> "$OUT/pytest_vf.log"
tail -3 "$OUT/pytest_vf.log"
timeout "$(cap 240)" python3 bench/spec_breakdown.py --variants kda,gla --drafts 8 --cycles 8 \
    --out "$OUT/staggered" > "$OUT/staggered.log" 2>&1
cut -c1-220 "$OUT/staggered/spec_breakdown.md" 2>/dev/null || grep "^RUN" "$OUT/staggered.log" | cut -c1-900
[ "$(left)" -gt 40 ] && timeout "$(left)" python3 bench/spec_bench.py --variants kda,gla --drafts 8 \
    --batches 256 --verify-folds --skip-accuracy --out "$OUT/spec_vf" > "$OUT/spec_vf.log" 2>&1
grep -B2 -A4 "^| variant | batch" "$OUT/spec_vf/spec_bench.md" 2>/dev/null | cut -c1-250
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
