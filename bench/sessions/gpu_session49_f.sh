#!/usr/bin/env bash
# Session 49, for an H200 only (it exits at once elsewhere), ~4 min: issue 3's rows of every
# variant (T = 8, batch 256) and KDA's T = 8 verify re-swept there, then its row again
# (gpu_env.sh issue3_rows_and_kda; as gpu_session48_k.sh). H200 last measured in session
# 41 (KDA 1.30x). Commit $OUT/kda_tuning.json where its entry wins.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
grep -q "H200" "$OUT/gpu.txt" || { echo "not an H200: $(tail -1 "$OUT/gpu.txt")"; exit 0; }
issue3_rows_and_kda 90
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name "*_tuning.json" -delete && mv /tmp/data.tgz "$OUT/"
