#!/usr/bin/env bash
# Session 40, call 9 (issue 4), timing only. Calls 7-8: longer key chunks read the FP8
# copy faster (BKT = 64: 1.07-1.12x). Is it the fetch pattern (a row's 128 bytes in
# 32-byte visits, apart in time)? L (bench/ab_templates/s40_L, built from the committed
# templates, carried) reads the copy as if it were stored in 32-key blocks, each value
# head's block a contiguous [V, 32] run, so that a [64, 32] chunk is one 2 KB run. Its
# values are not the copy's (the check's O(1) difference is expected): it times the
# pattern only, against the committed layout at the tabled chunks and at BKT = 64.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
L=bench/ab_templates/s40_L
timeout 200 python3 bench/template_ab.py --templates templates,templates@BKT=64+BV=128,$L,$L@BKT=64+BV=128 --rounds 3 \
    --cases gdn:qwen3.5-4b:fp8,mamba2:nemotron3-nano-4b:fp8 --out "$OUT/ab_layout" > "$OUT/ab_layout.log" 2>&1
grep "^gdn\|^mamba2" "$OUT/ab_layout.log" | cut -c1-700
