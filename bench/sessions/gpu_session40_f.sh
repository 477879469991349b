#!/usr/bin/env bash
# Session 40, call 9 (issue 4), H200 only. Calls 7-8 (H100, the H200's tables): GDN 4B's
# FP8 row non-flush decode at BKT = 64 took 0.0861 ms against the tabled BKT = 32's
# 0.0919 (1.067x; with BV = 128, 1.097x), Mamba-2 Nano's 1.114x; NVFP4 lost at every
# other chunk. The H200's FP8 entries may predate the templates since; re-tune both FP8
# row read copies' decodes there (the sweep tries BKT 16-128), then time the tuned decodes
# with their fp32 reads (issue 4's ratios).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
grep -q H200 "$OUT/gpu.txt" || { echo "not an H200: no tune"; exit 3; }
tune_decode gdn qwen3.5-4b fp8 ${TUNE_S:-100}
tune_decode mamba2 nemotron3-nano-4b fp8 ${TUNE_S:-100}
grep -E "read_fp8row__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | tail -4 | cut -c1-250
timeout 150 python3 bench/template_ab.py --templates templates --rounds 3 \
    --cases gdn:qwen3.5-4b:fp8,gdn:qwen3.5-4b:fp32,mamba2:nemotron3-nano-4b:fp8,mamba2:nemotron3-nano-4b:fp32 \
    --out "$OUT/ab_tuned" > "$OUT/ab_tuned.log" 2>&1
grep "^gdn\|^mamba2" "$OUT/ab_tuned.log" | cut -c1-300
