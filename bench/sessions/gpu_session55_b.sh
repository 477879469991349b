#!/usr/bin/env bash
# Session 55, <= 7 min. On an H200: issue 4's Mamba-2 Nano FP8 read-copy decode swept on
# this card with the phases added since session 41 (stream first, flushing programs first;
# the same sweep took GDN 4B from 3.35x to 3.59x amortised in session 54), then issue 4's
# Mamba-2 table with whatever entry wins (session 54: FP8 amortised 3.41x, target 3.5x).
# The second half of gpu_session48_g.sh, without its issue 3 rows (session 54 took them
# on this card). Commit $OUT/mamba2_tuning.json if the entry wins. On another card:
# gpu_session55_a.sh. One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if ! grep -q "H200" "$OUT/gpu.txt"; then
    exec bash "$(dirname "$0")/gpu_session55_a.sh"
fi
nano_fp8_issue4 ${TUNE_S:-180} 150
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name "*_tuning.json" -delete && mv /tmp/data.tgz "$OUT/"
