#!/usr/bin/env bash
# Session 61, <= 9 min on an H200; on any other card it runs nothing (the H100's share of
# the plan ran as call A, gpu_session61_b.sh). gpu_session60_d.sh: issue 4's table (none on
# an H200 since session 54), the fp32 NVFP4 decodes of GDN 4B and Mamba-2 Nano and Nano's
# FP8 decode refined through phases 4d-4f, and the table again.
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    bash "$(dirname "$0")/gpu_session60_d.sh"
else
    nvidia-smi --query-gpu=name --format=csv,noheader
    echo "not an H200: nothing run"
fi
