#!/usr/bin/env bash
# Session 58, <= 8 min. On an H200 (none since session 54): issue 4's table (GDN 4B,
# Mamba-2 Nano) with the int8 products and the division-free fold scales, the NVFP4
# decodes of both and Nano's FP8 decode swept there (TUNE_S s each; the H200 entries
# predate both changes), and the table again; commit $OUT/tables/{gdn,mamba2}.json where
# the second table wins. On another card: only step 2.
# 2. ncu of GDN 4B's NVFP4 non-flush decode with the caches as the warm-up left them
#    (NCU_CACHE=none; session 58's profile flushed them): does its DRAM traffic exceed
#    the byte model's (~76-85 MB at the H100's 41%)?
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if grep -q H200 "$OUT/gpu.txt"; then
    issue4_retune "${TUNE_S:-50}"
fi
[ -n "${SKIP_NCU:-}" ] || NCU_CACHE=none ncu_kernel gdn-nvfp4-decode-warm replay_decode_kernel 17 \
    gdn --config qwen3.5-4b --read-dtype nvfp4
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
