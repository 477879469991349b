#!/usr/bin/env bash
# Session 63, ~6 min, chained after gpu_session63_c.sh on the same card. On an H200 (with
# call c's re-swept conventional tables copied into the tree): issue 4's table and issue
# 3's rows at T = 8 against the faster conventional step. On any other card: the fp32
# replay decodes of the five issue-5 geometries refined from their tabled launches under
# the new grid orders (tune --refine, REFINE_S s each), tables to $OUT/tables.
# One tarball comes back.
here="$(dirname "$0")"
source "$here/../gpu_env.sh"
export PYTHONPATH=.
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    issue4_table table
    SPEC_TIMEOUT=${SPEC_TIMEOUT:-120} spec_rows gdn,mamba2,kda,gla 8
else
    refine_decodes "${REFINE_S:-50}" "gdn qwen3.5-4b none" "gdn qwen3.5-122b-a10b none" \
        "mamba2 nemotron3-nano-4b none" "mamba2 nemotron3-super-120b none" "kda kimi-linear-48b none"
    grep -E "__state_fp32__rec_bf16.* replay_decode +256 " "$OUT/tune.log" | cut -c1-240
fi
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
