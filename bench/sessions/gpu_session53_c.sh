#!/usr/bin/env bash
# Session 53, <= 8 min. On an H200 (none since session 41): the current figures of issues 3,
# 4 and 5 there with the committed tables, nothing re-tuned: issue 3's rows (T = 8, batch
# 256, every variant), issue 5's suite at batch 256, issue 4's precision table (GDN,
# Mamba-2, --quick). Elsewhere: our conventional GDN decode at batch 64 swept (fla's beat
# it on the H100, session 53 call B) and the GDN suite at 64 and 256 after it.
# One tarball comes back (a call returns at most 8 files).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if grep -q "H200" "$OUT/gpu.txt"; then
    SPEC_TIMEOUT=${SPEC_S:-140} spec_rows mamba2,gdn,kda,gla 8
    SUITE_TIMEOUT=${SUITE_S:-110} suite suite_h200 gdn,mamba2,kda
    timeout ${PRECISION_S:-180} python3 bench/precision_bench.py --out "$OUT/precision" --variants gdn,mamba2 --quick \
        > "$OUT/precision.log" 2>&1
    grep -A6 "^| variant | config | decode" "$OUT/precision/precision_bench.md" | cut -c1-250
else
    timeout 160 python3 -m replaygen tune --variant gdn --L 16 --kernels conventional_decode \
        --batches 64 --budget-s 120 > "$OUT/tune.log" 2>&1
    mkdir -p "$OUT/tables" && cp generated/gdn/tuning.json "$OUT/tables/gdn.json"
    grep -E "conventional_decode +64 " "$OUT/tune.log" | cut -c1-220
    timeout 120 python3 -m replaygen bench --variants gdn --L 16 --batches 64,256 \
        --out "$OUT/suite_gdn" > "$OUT/suite_gdn.log" 2>&1
    grep -E "^\| gdn " "$OUT/suite_gdn/bench.md" | cut -c1-220
fi
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
