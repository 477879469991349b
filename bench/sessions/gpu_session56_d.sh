#!/usr/bin/env bash
# Session 56, any GPU, <= 7 min (not run in session 56: no GPU came). Issue 4's NVFP4 read
# copy with its word products in int8 (bench/proto/s56_nvfp4_int8.diff: formats.py's
# byte-permute nibble lookup and dp4a, with its tests; offline sm_90 the GDN 4B decode's
# chunk loop 610 -> 442 instructions, Mamba-2 Nano's 405 -> 312), checked and timed:
# 1. with the diff applied, the GPU-only tests of its PTX (test_formats' word products)
#    and the NVFP4 precision tests, then issue 4's table for GDN 4B and Mamba-2 Nano
#    (precision_bench --quick);
# 2. the diff taken back out, the same table with the fp16x2 products, on the same card;
# 3. the product alone against the fp16x2 word path (bench/proto/s56_nvfp4_dp4a.py).
# Land the diff (patch, `replaygen build --all`, CI) if the tests pass and the table wins.
# One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
DIFF=bench/proto/s56_nvfp4_int8.diff
if patch -p1 -s < "$DIFF"; then
    timeout ${TEST_S:-100} python3 -m pytest -q tests/test_formats.py tests/test_precision.py -p no:cacheprovider \
        -k "word or (nvfp4 and matches_reference)" -x -n 8 > "$OUT/pytest-cuda.log" 2>&1
    echo "pytest exit $?" >> "$OUT/pytest-cuda.log"; tail -3 "$OUT/pytest-cuda.log"
    issue4_table precision_int8
    patch -p1 -s -R < "$DIFF"
else
    echo "the diff does not apply"
fi
issue4_table precision_fp16x2
timeout ${DP4A_S:-100} python3 bench/proto/s56_nvfp4_dp4a.py --out "$OUT/nvfp4_dp4a.json" > "$OUT/nvfp4_dp4a.log" 2>&1
echo "nvfp4_dp4a rc=$?"; grep -E "^copy|FAILED" "$OUT/nvfp4_dp4a.log" | cut -c1-300
proto_summary "$OUT/nvfp4_dp4a.json" words dp4a_lane dp4a_const dp4a2
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
