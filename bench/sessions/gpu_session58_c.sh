#!/usr/bin/env bash
# Session 58, any GPU, ~1 min each step; with s57_nvfp4_fast_scales.diff and s58_e2m1_round.diff
# applied to the working tree (as they land). Step 1 (the first run): the NVFP4 non-flush
# decode at fewer registers (more programs per SM) and ncu of the NVFP4 fold (fold_kernel,
# skip 18: see gpu_session57_b.sh). Step 2 (STEP=2, the second run): the fold's warps.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if [ "${STEP:-1}" = 1 ]; then
    ab occupancy 150 gdn:qwen3.5-4b:nvfp4 "templates,templates@maxnreg=112,templates@maxnreg=96"
    ncu_kernel gdn-nvfp4-fold fold_kernel 18 gdn --config qwen3.5-4b --read-dtype nvfp4
else
    ab fold_warps 200 gdn:qwen3.5-4b:nvfp4,mamba2:nemotron3-nano-4b:nvfp4 \
        "templates,templates@fold_warps=8,templates@fold_warps=2"
fi
