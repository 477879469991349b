#!/usr/bin/env bash
# Session 63, call a, ~7 min. On an H200: gpu_session62_b.sh (the grid-order A/Bs against
# the templates before them, the conventional launches re-swept at batch 256, issue 5's
# rows). On any other card: gpu_session62_e.sh (the snapshot baseline, the separate fold
# and the verify kernels in slot-contiguous / heads-first order), which needs no H200.
# One tarball comes back.
here="$(dirname "$0")"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    bash "$here/gpu_session62_b.sh"
else
    bash "$here/gpu_session62_e.sh"
fi
