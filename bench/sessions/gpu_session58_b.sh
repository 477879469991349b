#!/usr/bin/env bash
# Session 58, any GPU, <= 7 min: is issue 4's NVFP4 non-flush decode waiting on memory?
# Session 57: its int8 products took 28% of the loop's instructions and 3% of its time.
# At the tables' launch (one warp per program, 128 registers, num_stages 1: the tuner's
# Triton pipelining at 2-3 stages lost) each program has at most one key chunk's words in
# flight, and only while it waits for them.
# 1. A/B (bench/template_ab.py, batch 256, L = 16, checked against main's outputs first):
#    main's templates against bench/proto/s58_word_prefetch.diff (the next chunk's words
#    and block scales loaded one iteration ahead, in registers) at the tabled launch
#    (offline sm_90: 56 bytes of spills at 128 registers) and at maxnreg 144 (no spills,
#    14 programs per SM instead of 16); GDN 4B and Mamba-2 Nano NVFP4, GDN 4B FP8.
# 2. ncu (gpu_env.sh's ncu_kernel) of main's GDN 4B NVFP4 non-flush decode
#    (replay_decode_kernel, skip 17: see gpu_session57_b.sh): its stall reasons.
# One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
PF=/tmp/tpl_prefetch
folder "$PF" bench/proto/s58_word_prefetch.diff
ab prefetch ${AB_S:-300} gdn:qwen3.5-4b:nvfp4,mamba2:nemotron3-nano-4b:nvfp4,gdn:qwen3.5-4b:fp8 \
    "templates,$PF,$PF@maxnreg=144"
ncu_kernel gdn-nvfp4-decode replay_decode_kernel 17 gdn --config qwen3.5-4b --read-dtype nvfp4
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
