#!/usr/bin/env bash
# Session 64, ~7 min. On an H200: gpu_session62_b.sh (the grid-order A/Bs against the
# templates before them, the conventional launches re-swept at batch 256, issue 5's
# rows). On any other card: gpu_session63_d.sh's other branch, the fp32 replay decodes of
# the five issue-5 geometries refined under sessions 62-63's grid orders (session 63's
# call d already gave the H100's rows of all three issues, so they are not repeated).
here="$(dirname "$0")"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    exec bash "$here/gpu_session62_b.sh"
fi
exec bash "$here/gpu_session63_d.sh"
