#!/usr/bin/env bash
# Session 45, any GPU, ~3 min (a budget's last minutes): after gpu_session45_c.sh (H100:
# Mamba-2 Nano at 4 value heads per program 1.042x amortised fp32, 1.028x FP8; 12 heads
# 0.93x / 1.00x), the other divisors of Nano's key group of 12 and the issue-5 geometries
# with larger key groups: Mamba-2 Super (16 heads per group) and GDN 122B (4), fp32,
# template_ab against the tabled launch. Everything comes back in data.tgz.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
HS="templates@stream_first=0+onepass_flush=0+head_scores=1"
ab big 110 mamba2:nemotron3-super-120b:fp32,gdn:qwen3.5-122b-a10b:fp32 "templates,$HS+heads=2,$HS+heads=4"
ab nano 100 mamba2:nemotron3-nano-4b:fp32,mamba2:nemotron3-nano-4b:fp8 "templates,$HS+heads=2,$HS+heads=3,$HS+heads=6"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
