#!/usr/bin/env bash
# Session 36: KDA's fp32 decode, bound by shared memory at its tabled launch ([16], one
# warp, 4 stages, cap 168: 26.3 KB, 8 programs per SM with three tiles in flight each;
# its registers would allow 12). Offline (sm_90, Triton 3.6): 3 stages take 17.6 KB (12
# per SM, two tiles each: the same 24 tiles in flight per SM, half again the warps), 2
# stages at cap 128 take 8.9 KB (16 per SM, one tile each). A B C A B C of the tabled
# launch and those two (issue 5: KDA's amortised step is at 82% of the copy).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 200 python3 bench/template_ab.py --templates templates,templates@num_stages=3,templates@num_stages=2+maxnreg=128 \
    --rounds 3 --cases kda:kimi-linear-48b:fp32 --out "$OUT/ab_decode_kda" > "$OUT/ab_decode_kda.log" 2>&1
tail -5 "$OUT/ab_decode_kda.log" | cut -c1-260
