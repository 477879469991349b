#!/usr/bin/env bash
# Session 48, for an H200 only (it exits at once elsewhere), one call of ~4 min: issue 3's
# rows (spec_bench, T = 8, batch 256, every variant) with the probe-row head and the solve
# by products (H100: KDA 1.20x -> 1.14x), then KDA's T = 8 verify re-swept on this card and
# its row again. The short form of gpu_session48_g.sh (no issue-4 sweep). Commit
# $OUT/kda_tuning.json where its entry wins.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
grep -q "H200" "$OUT/gpu.txt" || { echo "not an H200: $(tail -1 "$OUT/gpu.txt")"; exit 0; }
issue3_rows_and_kda 90
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name "*_tuning.json" -delete && mv /tmp/data.tgz "$OUT/"
