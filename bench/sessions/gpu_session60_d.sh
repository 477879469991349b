#!/usr/bin/env bash
# Session 60, <= 9 min, any card. Phase 4f of `replaygen tune` (Launch.record_block, session
# 60: the records' terms from the committed records only, in blocks; call C's A/B on an
# H100: GDN 4B NVFP4 blocks of 8 1.064x at n = L/2 and 1.029x amortised) on the read-copy
# decodes, refining from the tabled launches, then issue 4's table with whatever won.
# - H100: phase 4f alone (its tabled NVFP4 and Nano FP8 launches take head scores
#   already), TUNE_S s each (default 30), for the fp32 and fp16-SR NVFP4 decodes of GDN
#   4B and Mamba-2 Nano and Nano's FP8 decode.
# - H200: issue 4's table first (none since session 54; SKIP_BEFORE=1 skips it), then
#   phases 4d, 4e and 4f (its
#   entries stream first or take no head scores, so 4f needs 4d's bases), TUNE_S s each
#   (default 60), for the fp32 NVFP4 decodes of both and Nano's FP8 decode.
# Commit $OUT/tables/{gdn,mamba2}.json where the table after wins.
# One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if grep -q H200 "$OUT/gpu.txt"; then
    [ -z "${SKIP_BEFORE:-}" ] && issue4_table table_before   # (SKIP_BEFORE=1: ~2 min less)
    TUNE_PHASES=4d,4e,4f refine_decodes "${TUNE_S:-60}" "gdn qwen3.5-4b nvfp4" \
        "mamba2 nemotron3-nano-4b nvfp4" "mamba2 nemotron3-nano-4b fp8"
else
    TUNE_PHASES=4f refine_decodes "${TUNE_S:-30}" "gdn qwen3.5-4b nvfp4" "mamba2 nemotron3-nano-4b nvfp4" \
        "mamba2 nemotron3-nano-4b fp8" "gdn qwen3.5-4b nvfp4 sr" "mamba2 nemotron3-nano-4b nvfp4 sr"
fi
issue4_table table_after
grep -m1 "bytes bound:" "$OUT/table_after/precision_bench.md"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
