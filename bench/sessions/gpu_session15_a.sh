#!/usr/bin/env bash
# Session 15, first device call: the key-chunk verify (GDN, Mamba-2) as one pipelined
# stream over its value tiles' key chunks (bench/ab_templates/vk1). The shipped verify
# loops over value tiles with the kernel's stages: offline sm_90 TTGIR of GDN 4B's tabled
# [16, 128]/w1/s2 shows each tile's checkpoint copy issued after the previous tile's
# products and window and waited on at once (async_wait num = 0), so a program never has
# a load in flight while it computes. vk1 flattens (tile, chunk) into one tl.range loop:
# at 3 stages one chunk stays in flight through a chunk's product and a tile's window
# (wait num = 4). Offline GDN 4B: [16, 64]/w1/s3/h2 194 registers, 23.5 KiB shared
# (tabled s2: 187, 23 KiB); h1 148 / 22.5 KiB.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
filt() { grep -v Warning "$1" | grep -v "return replaygen\|kern = \|replaygen.load\|^ *$" | tail -"$2"; }
AB=bench/ab_templates
V="templates,$AB/vk1@BKT=64+num_stages=3,$AB/vk1@BKT=64+num_stages=3+heads=1,$AB/vk1@num_stages=3,$AB/vk1@BKT=32+num_stages=3"
timeout 260 python3 bench/template_ab.py --kernel verify --cases gdn:qwen3.5-4b:fp32 --rounds 3 \
    --out "$OUT/vab_gdn" --templates "$V" > "$OUT/vab_gdn.log" 2>&1
filt "$OUT/vab_gdn.log" 12
timeout 260 python3 bench/template_ab.py --kernel verify --cases mamba2:nemotron3-nano-4b:fp32 --rounds 3 \
    --out "$OUT/vab_nano" --templates "$V" > "$OUT/vab_nano.log" 2>&1
filt "$OUT/vab_nano.log" 12
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log vab_* 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
