#!/usr/bin/env bash
# Session 49, any GPU, one call of ~3 min (issue 3): is KDA's T = 8 verify losing its last
# wave? At 8 one-warp programs per SM an H100 runs 132 x 8 = 1056 (row, value head)
# programs at once, 33 rows of 32 heads: batch 256 is 7.76 waves, 264 exactly 8, 231
# exactly 7, 297 exactly 9, 528 exactly 16. Issue 3's KDA row at those batches and around
# them (spec_bench, T = 8, the batch-256 launch for 129-384 rows): if the verify's time
# per row steps at the wave boundaries, the partial last wave costs the difference.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 400 python3 bench/spec_bench.py --variants kda --drafts 8 --batches 231,240,248,256,264,280,297,512,528 \
    --skip-check --skip-accuracy --out "$OUT/spec" > "$OUT/spec.log" 2>&1
grep "^| kda" "$OUT/spec/spec_bench.md"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
