#!/usr/bin/env bash
# Session 39, call a. (1) The GPU tests session 38 could not re-run: the two-launch verify
# against one launch (fixed for never-written NaN ring rows, ead6433), together with the
# FP8 tensor-core read path's tests (Launch.read_mma, session 37), and the per-field diff of
# the two-launch rings (bench/proto/s38_split_diag.py). (2) gpu_session37_a.sh's A/B: GDN
# 4B's tabled key-chunk FP8 decode against four read_mma launches in value tiles, and the
# fp32 read (issue 4's denominator).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout -s INT -k 20 170 python3 -m pytest -q -n 16 -p xdist -rf tests/test_speculative.py \
    tests/test_precision.py tests/test_tuning.py tests/test_formats.py \
    -k "two_launches or read_products or mma or e4m3" > "$OUT/tests.log" 2>&1
grep -E "^FAILED|passed|failed" "$OUT/tests.log" | tail -8
timeout 60 python3 bench/proto/s38_split_diag.py > "$OUT/split_diag.log" 2>&1
grep -c " bad 0 " "$OUT/split_diag.log"; grep -v " bad 0 " "$OUT/split_diag.log" | cut -c1-200 | head -8
MMA_AB_TIMEOUT=330 mma_ab gdn qwen3.5-4b fold_warps=4 64/4/2 128/4/1 128/4/2 128/8/1
