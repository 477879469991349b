#!/usr/bin/env bash
# Session 63, ~7 min. On an H200: gpu_session62_b.sh (the grid-order A/Bs against the
# templates before them, the conventional launches re-swept at batch 256, issue 5's
# rows). On any other card, where the tables are that card's own: where the three issues
# stand with this session's grid orders (the snapshot baseline slot-contiguous, the fold
# and verify kernels heads first; calls a-c): issue 5's rows, issue 3's rows at T = 8
# and issue 4's table. One tarball comes back.
here="$(dirname "$0")"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    bash "$here/gpu_session62_b.sh"
    exit
fi
source "$here/../gpu_env.sh"
export PYTHONPATH=.
SUITE_TIMEOUT=200 suite suite gdn,mamba2,kda
SPEC_TIMEOUT=${SPEC_TIMEOUT:-120} spec_rows gdn,mamba2,kda,gla 8
issue4_table table
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
