#!/usr/bin/env bash
# For session 43 (issues 3 and 4), any GPU (~5 min; on an H100 with the H200's tables:
# ratios only). 1. Launch.head_scores for Mamba-2 (Nano and Super FP8; call 1 timed GDN
# only): the tabled launch against head scores at the tabled cap, 128 and 104. 2. Issue
# 3's T = 8 table for KDA and GLA with 8786c2f (the window product split at n).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
grep -q H200 "$OUT/gpu.txt" || export REPLAYGEN_TUNING_GPU="NVIDIA H200"
H="templates@stream_first=0+head_scores=1"
timeout 240 python3 bench/template_ab.py --templates "templates,$H,$H+maxnreg=128,$H+maxnreg=104" --rounds 3 \
    --cases mamba2:nemotron3-nano-4b:fp8,mamba2:nemotron3-super-120b:fp8 \
    --out "$OUT/ab_head" > "$OUT/ab_head.log" 2>&1
grep "^mamba2" "$OUT/ab_head.log" | cut -c1-420
timeout 200 python3 bench/spec_bench.py --variants kda,gla --drafts 8 --batches 256 --skip-accuracy \
    --out "$OUT/spec" > "$OUT/spec.log" 2>&1
grep -A4 "^| variant | batch" "$OUT/spec/spec_bench.md"
