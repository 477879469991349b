#!/usr/bin/env bash
# Session 57, <= 9 min, meant for an H200 (runs on any card: the tables are per GPU name).
# Issue 4's read-copy decodes swept again now that the NVFP4 word products run in int8 dot
# products (landed this session; Mamba-2 Nano's NVFP4 decode went from ~150 to 137
# registers, so the old entries' occupancy assumptions no longer hold), plus Mamba-2 Nano's
# FP8 decode (session 55's pending sweep), then issue 4's table for GDN 4B and Mamba-2 Nano
# with whatever entries won (precision_bench --quick). Commit $OUT/tables/{gdn,mamba2}.json
# where the table's rows beat session 54's (H200: NVFP4 amortised 3.28x GDN, 3.33x Mamba-2;
# FP8 3.59x GDN, 3.41x Mamba-2). One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
T=${TUNE_S:-110}
tune_decode gdn qwen3.5-4b nvfp4 "$T"
tune_decode mamba2 nemotron3-nano-4b nvfp4 "$T"
tune_decode mamba2 nemotron3-nano-4b fp8 "$T"
grep -E "budget|read_(nvfp4|fp8row)__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | cut -c1-240
timeout ${PRECISION_S:-120} python3 bench/precision_bench.py --out "$OUT/precision" --variants gdn,mamba2 --quick \
    > "$OUT/precision.log" 2>&1
echo "precision rc=$?"
grep -A12 "^| variant | config | decode" "$OUT/precision/precision_bench.md" | cut -c1-250
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
