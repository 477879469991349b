#!/usr/bin/env bash
# Session 64, ~8 min. On an H200: gpu_session62_b.sh, as gpu_session64_a.sh. On any
# other card: the fp32 replay decodes of the five issue-5 geometries refined from their
# tabled launches under sessions 62-63's grid orders (`tune --refine`, REFINE_S s each;
# tables to $OUT/tables), then issue 5's rows with the refined tables (the tune writes
# them into this copy's generated/*/tuning.json). One tarball comes back.
here="$(dirname "$0")"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    exec bash "$here/gpu_session62_b.sh"
fi
source "$here/../gpu_env.sh"
export PYTHONPATH=.
refine_fp32_decodes "${REFINE_S:-45}"
SUITE_TIMEOUT=170 suite suite gdn,mamba2,kda
pack_out
