#!/usr/bin/env bash
# Session 63, ~7 min, for the last ~11 device minutes. On an H200: gpu_session62_b.sh
# without its conventional re-sweep (no time for it): the grid-order A/Bs against the
# templates before them (the conventional step at its tabled launch only), then issue
# 5's rows. On any other card: gpu_session63_c.sh's rows (issues 5, 3 and 4).
# One tarball comes back.
here="$(dirname "$0")"
if ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    bash "$here/gpu_session63_c.sh"
    exit
fi
source "$here/../gpu_env.sh"
export PYTHONPATH=.
SUITE_TIMEOUT=180 suite suite gdn,mamba2,kda
grid_order_abs ${AB_S:-120} ${AB_REPLAY_S:-110}
pack_out
