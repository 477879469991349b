#!/usr/bin/env bash
# Session 10, first device call: re-tune the batch-256 decodes that missed their targets
# or whose launches are stale: GDN 4B and Mamba-2 Nano fp32 (issue 5: 2% and 1% short),
# both fp16-SR + NVFP4 configurations and Mamba-2's FP8 row read copy (issue 4: sweeps cut
# short before phases 4-5 in session 9), all with version 23's fold quantiser.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
tune_decode gdn qwen3.5-4b none 70
tune_decode mamba2 nemotron3-nano-4b none 70
tune_decode gdn qwen3.5-4b nvfp4 110 sr
tune_decode mamba2 nemotron3-nano-4b nvfp4 110 sr
tune_decode mamba2 nemotron3-nano-4b fp8 100
grep -A1 "^configuration\|budget" "$OUT/tune.log" | grep -v "^--"
