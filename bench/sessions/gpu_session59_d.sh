#!/usr/bin/env bash
# Session 59, ~5 min. On an H200: issue4_retune (TUNE_S s per sweep). Elsewhere: the
# read-copy decodes' tabled launches refined through phases 5-7 only (`replaygen tune
# --refine --phases 5,6,7`, new in session 59: the separate fold's warps, its split and
# its tile loop pipelined, which call C's refining sweeps did not reach in 60 s), GDN 4B
# and Mamba-2 Nano with NVFP4 and FP8 read copies; then issue 4's table. Commit
# $OUT/tables/*.json where the entries won. One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if grep -q H200 "$OUT/gpu.txt"; then
    issue4_retune "${TUNE_S:-55}"
else
    for c in "gdn qwen3.5-4b nvfp4" "mamba2 nemotron3-nano-4b nvfp4" "gdn qwen3.5-4b fp8" \
             "mamba2 nemotron3-nano-4b fp8"; do
        TUNE_REFINE=1 TUNE_PHASES=5,6,7 tune_decode $c "${TUNE_S:-60}"
    done
    grep -E "^phase|budget|replaygen tune:|read_(nvfp4|fp8row)__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | cut -c1-260
    issue4_table table_after
fi
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
