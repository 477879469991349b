#!/usr/bin/env bash
# Session 48, any GPU, one call of ~3 min (issue 3 on the H100: KDA verify + commit 1.14x a
# decode step, call H; the commit and amortised fold take 0.146 ms of the 0.458 and run
# the H200's entries there): the T = 8 configuration's commit and fold launches swept on
# this card, then KDA's issue-3 row. Commit $OUT/kda_tuning.json where its entries win.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 200 python3 -m replaygen tune --variant kda --config kimi-linear-48b --L 16 --max-drafts 8 \
    --kernels commit,fold --batches 256 --budget-s ${TUNE_S:-150} >> "$OUT/tune.log" 2>&1
grep -E "^phase|timed in|budget|replaygen tune:|(commit|fold) +256 " "$OUT/tune.log" | cut -c1-200
cp generated/kda/tuning.json "$OUT/kda_tuning.json"
spec_rows kda 8
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name kda_tuning.json -delete && mv /tmp/data.tgz "$OUT/"
