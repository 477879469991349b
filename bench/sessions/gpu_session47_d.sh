#!/usr/bin/env bash
# Session 47, any GPU, one call of ~4 min (issue 3): KDA's T = 8 verify swept on this card
# (an H100 runs the H200's entry until it has its own), then issue 3's KDA row (spec_bench:
# verify + commit over a decode step, batch 256) with the new entry. Commit
# $OUT/kda_tuning.json where its entry is faster than the stand-in's.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 150 python3 -m replaygen tune --variant kda --config kimi-linear-48b --L 16 --max-drafts 8 \
    --kernels verify --batches 256 --budget-s ${TUNE_S:-110} > "$OUT/tune.log" 2>&1
grep -E "^phase|timed in|budget|replaygen tune:|verify +256 " "$OUT/tune.log" | cut -c1-200
cp generated/kda/tuning.json "$OUT/kda_tuning.json"
timeout 100 python3 bench/spec_bench.py --variants kda --drafts 8 --batches 256 --skip-accuracy \
    --out "$OUT/spec" > "$OUT/spec.log" 2>&1
grep -A4 "^| variant | batch" "$OUT/spec/spec_bench.md" | cut -c1-250
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name kda_tuning.json -delete && mv /tmp/data.tgz "$OUT/"
