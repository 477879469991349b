#!/usr/bin/env bash
# Session 59 (for session 60), <= 9 min on an H200 (none since session 54); elsewhere it
# runs nothing and exits (the H100's read-copy entries were refined in session 59).
# Issue 4's table (GDN 4B, Mamba-2 Nano) with what has landed since session 54 (int8
# NVFP4 products, the fold's division-free block scales, Launch.fold_stages), the NVFP4
# decodes of both and Nano's FP8 decode refined from the H200's entries (issue4_refine:
# every phase for TUNE_S s, default 40, then phases 5-7 for PHASE_S s, default 30), and the
# table again. Commit $OUT/tables/{gdn,mamba2}.json where the second table wins.
# One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if grep -q H200 "$OUT/gpu.txt"; then
    issue4_refine "${TUNE_S:-40}" "${PHASE_S:-30}"
else
    echo "not an H200: nothing run"
fi
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
