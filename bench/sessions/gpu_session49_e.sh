#!/usr/bin/env bash
# Session 49, one call: on an H200, issue 3's rows of every variant (T = 8, batch 256) and
# KDA's T = 8 verify re-swept there (gpu_session48_k.sh, ~4 min; H200 last measured in
# session 41: KDA 1.30x); elsewhere the ncu profile of KDA's T = 8 verify
# (gpu_session49_d.sh, ~3 min). Commit $OUT/kda_tuning.json where its entry wins.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if grep -q "H200" "$OUT/gpu.txt"; then
    issue3_rows_and_kda 90
    tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name "*_tuning.json" -delete && mv /tmp/data.tgz "$OUT/"
else
    bash "$(dirname "$0")/gpu_session49_d.sh"
fi
