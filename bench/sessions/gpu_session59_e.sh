#!/usr/bin/env bash
# Session 59, <= 8 min. On an H200: issue4_retune (TUNE_S s per sweep). Elsewhere: the
# fp16-SR + NVFP4 decodes of GDN 4B and Mamba-2 Nano, which have no H100 entries (they run
# the H200's launches there), refined from those launches through every phase (`replaygen
# tune --refine`, TUNE_S s each); then issue 4's table. Commit $OUT/tables/*.json where
# the entries won. One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if grep -q H200 "$OUT/gpu.txt"; then
    issue4_retune "${TUNE_S:-55}"
else
    TUNE_REFINE=1 tune_decode gdn qwen3.5-4b nvfp4 "${TUNE_S:-100}" sr
    TUNE_REFINE=1 tune_decode mamba2 nemotron3-nano-4b nvfp4 "${TUNE_S:-100}" sr
    grep -E "^phase|budget|replaygen tune:|fp16sr__read_nvfp4__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | cut -c1-260
    issue4_table table_after
fi
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
