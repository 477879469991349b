#!/usr/bin/env bash
# Session 61 (for session 62), ~7 min, any card (an H200 first: the H200's fold share of
# the NVFP4 amortised step is ~40%, 0.0323 of GDN 4B's 0.0797 ms and 0.0564 of Nano's
# 0.1427, session 61 call B). Launch.fold_programs (session 61): the queued fold's grid
# at 16 warps per SM for one-, two- and eight-warp folds (the default 4 programs per SM
# gives a two-warp fold 8 warps per SM, a one-warp fold 4; session 58's ncu: the NVFP4
# fold 35% issue-busy, waiting on memory and barriers), against the tabled launch, on
# issue 4's four read-copy cases (template_ab.py: check, then CUDA-graph medians at
# n = L/2 and amortised over a staggered cycle). If one wins, phase 5 of
# `replaygen tune --refine --phases 5,6,7` sweeps it into the table.
# One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
AB_ROUNDS=${AB_ROUNDS:-3} ab fold_programs ${AB_S:-400} \
    gdn:qwen3.5-4b:nvfp4,mamba2:nemotron3-nano-4b:nvfp4,gdn:qwen3.5-4b:fp8,mamba2:nemotron3-nano-4b:fp8 \
    "templates,templates@fold_warps=2+fold_programs=8,templates@fold_warps=1+fold_programs=16,templates@fold_warps=2+fold_programs=8+fold_split=2,templates@fold_warps=8+fold_programs=2"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
