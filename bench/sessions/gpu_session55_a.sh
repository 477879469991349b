#!/usr/bin/env bash
# Session 55, any GPU, <= 9 min: issue 4's NVFP4 lever measured alone. bench/proto/
# s55_nvfp4_mma.py times the read copy's two-probe product over Qwen3.5-4B's NVFP4 copy at
# batch 256: the production word path (formats.read_words_dot2_at) against the chunks
# decoded to fp16 and multiplied on tensor cores (PTX decode, or Triton integer ops), each
# checked against float64 first, with a copy of the same bytes as the rate reference.
# Then, where the card is not an H200, session 53's H100 branch (our conventional GDN
# decode at batch 64 swept, the GDN suite at 64 and 256) unless ONLY_MMA=1. One tarball
# comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout ${MMA_S:-280} python3 bench/proto/s55_nvfp4_mma.py --out "$OUT/nvfp4_mma.json" > "$OUT/nvfp4_mma.log" 2>&1
echo "nvfp4_mma rc=$?"
grep -E "^copy|FAILED" "$OUT/nvfp4_mma.log" | cut -c1-300
proto_summary "$OUT/nvfp4_mma.json" words mma_sa_asm mma_asm mma_sa_plain mma_plain
if grep -q "H200" "$OUT/gpu.txt" || [ "${ONLY_MMA:-0}" = 1 ]; then
    tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
else
    bash "$(dirname "$0")/gpu_session53_c.sh"
fi
