#!/usr/bin/env bash
# Session 15, fourth device call. Offline (sm_90 TTGIR): at 2 stages the verify's stream
# has ONE checkpoint buffer (local_alloc 1x16x128), so a tile's copy can only start once
# the previous tile's product has read it: no load is ever in flight while a program
# computes. 3 stages double-buffer but cost shared memory (GDN 4B 23 -> 31.7 KiB: 6
# programs per SM, call 1 0.2526 ms against 0.2187); 64-key chunks at 3 stages kept the
# shared memory but loaded and staged the probes' chunk per chunk (0.2544). vk3: with two
# chunks the probes' halves are sliced once per program (no loads per chunk): GDN 4B
# [16, 64]/w1/s3 18.0 KiB shared, 255 registers (the two halves held as mma operands).
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
filt() { grep -v Warning "$1" | grep -v "return replaygen\|kern = \|replaygen.load\|^ *$" | tail -"$2"; }
AB=bench/ab_templates
timeout 200 python3 bench/template_ab.py --kernel verify --rounds 3 --out "$OUT/vab" \
    --cases gdn:qwen3.5-4b:fp32,mamba2:nemotron3-nano-4b:fp32 \
    --templates "templates,$AB/vk3@BKT=64+num_stages=3,$AB/vk3@BKT=64+num_stages=4,$AB/vk3@BKT=64+num_stages=3+heads=1,$AB/vk3@BKT=64+num_stages=3+maxnreg=168" \
    > "$OUT/vab.log" 2>&1
filt "$OUT/vab.log" 3
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log vab 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
