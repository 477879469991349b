#!/usr/bin/env bash
# Session 45, any GPU, one call of ~6 min: Mamba-2 Nano's fp32 decode re-tuned on this card,
# the whole sweep (phase 4e: programs over 2-12 value heads of a key group, Launch.heads;
# H100 A/B, session 45 call 2: 4 heads per program 1.042x amortised against the H200's
# tabled launch), then issue 5's Mamba-2 rows (`replaygen bench`, batch 256, L = 16: Nano
# at 87% of the copy on the H200, session 31; target 90%). On an H200 commit
# $OUT/mamba2_tuning.json as generated/mamba2/tuning.json if its entry is faster.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
tune_decode mamba2 nemotron3-nano-4b none ${TUNE_S:-200}
grep -E "state_fp32__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | tail -2 | cut -c1-260
grep "^phase\|budget" "$OUT/tune.log" | cut -c1-100
timeout 100 python3 -m replaygen bench --variants mamba2 --L 16 --batches 256 --out "$OUT/suite" > "$OUT/suite.log" 2>&1
grep -E "^\| mamba2 " "$OUT/suite/bench.md" | head -4 | cut -c1-230
cp "$OUT/tables/mamba2.json" "$OUT/mamba2_tuning.json" 2>/dev/null
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name mamba2_tuning.json -delete && mv /tmp/data.tgz "$OUT/"
