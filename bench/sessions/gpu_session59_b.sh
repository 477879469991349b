#!/usr/bin/env bash
# Session 59, <= 9.5 min on an H200, ~5 min elsewhere.
# 1. (H200 only) issue4_retune (as gpu_session59_a.sh's step 1, TUNE_S s per sweep).
# 2. (any card) the NVFP4 (and GDN 4B FP8) decodes at more warps per SM without spills:
#    launches the sweeps never time (their register caps fit 9-16 warps per SM, one-warp
#    launches 104 and 96 at most). Offline (sm_90, Triton 3.6, GDN 4B NVFP4): the H100's
#    tabled launch is [128, 32] chunks, 1 warp, 128 registers, 16 warps per SM; [32, 32] at
#    72 registers has no spills and fits 28; [16, 32] at 64 fits 32; [128, 32] over 2 warps
#    at 80 has no spills and fits 24 (12 programs). The decode waits on memory (ncu,
#    session 58), so more warps in flight may help where a register prefetch did not.
# 3. (not an H200) Mamba-2 Nano's NVFP4 decode swept (TUNE_S s): phase 7 may take the fold
#    pipelined 3 deep (gpu_session59_a.sh, H100: +2.2% amortised in all six rounds).
# One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if grep -q H200 "$OUT/gpu.txt"; then
    issue4_retune "${TUNE_S:-55}"
    AB_ROUNDS=${AB_ROUNDS:-2}
fi
AB_ROUNDS=${AB_ROUNDS:-4} ab occupancy ${AB_S:-200} \
    gdn:qwen3.5-4b:nvfp4,mamba2:nemotron3-nano-4b:nvfp4,gdn:qwen3.5-4b:fp8 \
    "templates,templates@BV=32+maxnreg=72,templates@BV=32+maxnreg=80,templates@BV=16+maxnreg=64,templates@BV=128+num_warps=2+maxnreg=80,templates@BV=64+maxnreg=None"
if ! grep -q H200 "$OUT/gpu.txt"; then
    tune_decode mamba2 nemotron3-nano-4b nvfp4 "${TUNE_S:-90}"
    grep -E "^phase|budget|read_nvfp4__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | cut -c1-260
fi
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
