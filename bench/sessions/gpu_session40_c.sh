#!/usr/bin/env bash
# Session 40, call 4 (issue 4). ncu of GDN 4B's FP8 row non-flush decode (call 3, H100):
# DRAM 64%, issue slots 42%, 0.74 eligible warps per scheduler, achieved occupancy 23%:
# latency-bound at 16 one-warp programs per SM (128 registers), not instruction-bound (call
# 2: 25-40% fewer stream instructions changed nothing). The tuner's register caps stop at
# 16 warps per SM (tune.register_caps); this times caps past it: 96, 80 and 64 registers
# (21, 25 and 32 programs per SM) on the tabled launches of the committed templates.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
B=bench/ab_templates/s40_base
timeout 260 python3 bench/template_ab.py --templates $B,$B@maxnreg=96,$B@maxnreg=80,$B@maxnreg=64 --rounds 3 \
    --cases gdn:qwen3.5-4b:fp8,gdn:qwen3.5-4b:nvfp4 --out "$OUT/ab_caps_gdn" > "$OUT/ab_caps_gdn.log" 2>&1
grep "^gdn" "$OUT/ab_caps_gdn.log" | cut -c1-500
timeout 250 python3 bench/template_ab.py --templates $B,$B@maxnreg=96,$B@maxnreg=80,$B@maxnreg=64 --rounds 3 \
    --cases mamba2:nemotron3-nano-4b:fp8,mamba2:nemotron3-nano-4b:nvfp4 --out "$OUT/ab_caps_mamba2" > "$OUT/ab_caps_mamba2.log" 2>&1
grep "^mamba2" "$OUT/ab_caps_mamba2.log" | cut -c1-500
