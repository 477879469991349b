#!/usr/bin/env bash
# Session 59, <= 9.5 min.
# On an H200: issue4_retune (as gpu_session59_a.sh's step 1, TUNE_S s per sweep).
# Elsewhere: the read-copy decodes' tabled launches refined (`replaygen tune --refine`,
# new in session 59: phase 1 the tabled launches and the plan's, then every later phase
# from them, TUNE_S s each): GDN 4B and Mamba-2 Nano with NVFP4 and FP8 read copies. Their
# later phases include phase 7, the separate fold's tile loop pipelined, which the
# tables' entries predate (calls A-B, H100: Mamba-2 Nano NVFP4 +2.2% amortised, GDN 4B
# FP8 -1.1%; call B's 90 s sweep of Nano ran out of budget before phase 7). Then issue
# 4's table with what they wrote. Commit $OUT/tables/*.json where the entries won.
# One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if grep -q H200 "$OUT/gpu.txt"; then
    issue4_retune "${TUNE_S:-55}"
else
    refine_decodes "${TUNE_S:-60}" "${READ_COPY_DECODES[@]}"
    issue4_table table_after
fi
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
