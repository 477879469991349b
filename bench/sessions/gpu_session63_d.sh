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
    refine_fp32_decodes "${REFINE_S:-50}"
fi
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
