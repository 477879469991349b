#!/usr/bin/env bash
# Session 59, ~5 min. On an H200: issue4_retune (TUNE_S s per sweep). Elsewhere: the
# read-copy decodes' tabled launches refined through phases 5-7 only (`replaygen tune
# --refine --phases 5,6,7`, new in session 59: the separate fold's warps, its split and
# its tile loop pipelined, which call C's refining sweeps did not reach in 60 s), GDN 4B
# and Mamba-2 Nano with NVFP4 and FP8 read copies; then issue 4's table. Commit
# $OUT/tables/*.json where the entries won. One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if grep -q H200 "$OUT/gpu.txt"; then
    issue4_retune "${TUNE_S:-55}"
else
    TUNE_PHASES=5,6,7 refine_decodes "${TUNE_S:-60}" "${READ_COPY_DECODES[@]}"
    issue4_table table_after
fi
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
