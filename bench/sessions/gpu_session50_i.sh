#!/usr/bin/env bash
# Session 50, any GPU, <= 8 min. On an H200: gpu_session49_f.sh (issue 3's rows of every
# variant and KDA's T = 8 verify re-swept there) into $OUT/f. Elsewhere: issue 3's T = 8
# rows of every variant with both protocols in one call (spec_bench.py, default and
# --verify-folds, no accuracy run), after the folding launch's probe-row head (7ecee4c).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if grep -q "H200" "$OUT/gpu.txt"; then
    OUT=$OUT/f bash "$(dirname "$0")/gpu_session49_f.sh"
    exit 0
fi
SPEC_TIMEOUT=170 spec_rows mamba2,gdn,kda,gla 8
timeout 170 python3 bench/spec_bench.py --variants mamba2,gdn,kda,gla --drafts 8 --batches 256 --verify-folds \
    --skip-accuracy --out "$OUT/spec_vf" > "$OUT/spec_vf.log" 2>&1
grep -A6 "^| variant | batch" "$OUT/spec_vf/spec_bench.md" | cut -c1-250
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
