#!/usr/bin/env bash
# Session 17, fifth device call: the verify kernels with the checkpoint's first value
# tiles prefetched into the L2 before the head phase (formats.prefetch_l2: PTX
# prefetch.global.L2; bench/ab_templates/pf2 = 2 tiles, pf8 = 8 tiles, carried; the
# patch is in the results folder), against the shipped templates at the tabled T = 8
# launches, batch 256.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
filt() { grep -v Warning "$1" | grep -v "return replaygen\|kern = \|replaygen.load\|^ *$" | tail -"$2"; }
A=bench/ab_templates
timeout 330 python3 bench/template_ab.py --kernel verify --rounds 3 --out "$OUT/pab" \
    --templates "templates,$A/pf2,$A/pf8" \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32,gdn:qwen3.5-4b:fp32,mamba2:nemotron3-nano-4b:fp32 \
    > "$OUT/pab.log" 2>&1
filt "$OUT/pab.log" 8
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log pab 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
