#!/usr/bin/env bash
# Session 60, ~4 min, any card (meant for the H100 when no H200 comes). The read-copy
# decodes that call C's phase 4f could not reach: GDN 4B fp32 + FP8 (its entry streams
# first, so phase 4d's head scores come first: phases 4d, 4e, 4f) and the fp16-SR NVFP4
# decodes of GDN 4B and Mamba-2 Nano (call C ran out of budget before their second
# candidate), refined from the tabled launches, TUNE_S s each (default 45). Commit
# $OUT/tables/{gdn,mamba2}.json where the log says a tabled launch was replaced.
# One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
TUNE_PHASES=4d,4e,4f refine_decodes "${TUNE_S:-45}" "gdn qwen3.5-4b fp8"
TUNE_PHASES=4f refine_decodes "${TUNE_S:-45}" "gdn qwen3.5-4b nvfp4 sr" "mamba2 nemotron3-nano-4b nvfp4 sr"
grep -E "tabled .* ms, best" "$OUT/tune.log" | cut -c1-220
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
