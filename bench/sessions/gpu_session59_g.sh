#!/usr/bin/env bash
# Session 59, ~2 min, any card but an H200 (on one it runs nothing: its fp16-SR entries
# predate phases 5-7 too, but issue4_retune comes first there). The fp16-SR + NVFP4
# decodes of GDN 4B and Mamba-2 Nano, refined through phase 7 only (`replaygen tune
# --refine --phases 7`; call F's ran out of budget before it;
# call E's before phase 5 / 6). Commit $OUT/tables/*.json where the entries won. One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if ! grep -q H200 "$OUT/gpu.txt"; then
    TUNE_REFINE=1 TUNE_PHASES=7 tune_decode gdn qwen3.5-4b nvfp4 "${TUNE_S:-40}" sr
    TUNE_REFINE=1 TUNE_PHASES=7 tune_decode mamba2 nemotron3-nano-4b nvfp4 "${TUNE_S:-40}" sr
    grep -E "^phase|budget|replaygen tune:|fp16sr__read_nvfp4__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | cut -c1-260
fi
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
