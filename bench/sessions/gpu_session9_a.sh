#!/usr/bin/env bash
# Session 9, first device call: the read copies' non-flush products in fp16x2 (8-byte
# words; formats.nvfp4_words_dot / e4m3_words_dot, PTX the interpreter cannot run):
# CUDA test_formats.py's word products and test_precision.py (GDN, Mamba-2), then the
# decode re-tuned at batch 256 for fp32 + NVFP4 and fp32 + FP8 row read copies (GDN 4B,
# Mamba-2 Nano; the candidates now include 128 elements per thread for word paths).
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
timeout 90 python3 -m pytest -q tests/test_formats.py tests/test_precision.py -p no:cacheprovider \
    -k "word_products or gdn or mamba2" -x -n 8 > "$OUT/pytest-cuda.log" 2>&1
echo "pytest exit $?" >> "$OUT/pytest-cuda.log"; tail -3 "$OUT/pytest-cuda.log"
for vcr in "gdn qwen3.5-4b nvfp4" "mamba2 nemotron3-nano-4b nvfp4" "gdn qwen3.5-4b fp8" \
           "mamba2 nemotron3-nano-4b fp8"; do
    set -- $vcr
    timeout 105 python3 -m replaygen tune --variant "$1" --config "$2" --L 16 \
        --read-dtype "$3" --kernels replay_decode --batches 256 --budget-s 90 >> "$OUT/tune.log" 2>&1
done
grep "replay_decode \|phase\|budget" "$OUT/tune.log"
mkdir -p "$OUT/tables" && for v in gdn mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
