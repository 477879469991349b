#!/usr/bin/env bash
# Session 66, ~7 min. On an H200: gpu_session62_b.sh (the grid-order A/Bs against the
# templates before them, the conventional launches re-swept at batch 256, issue 5's rows;
# none of sessions 62-63's orders has run on an H200). On any other card (session 65's
# H100 work is done: step gates lost, 0.985x at best, and the 30 s refines of the five
# fp32 decodes kept every tabled launch, each stopping before phase 2b): KDA's fp32 replay
# decode (issue 5's lowest row, 1.58x against 1.6x) refined through every phase
# (`tune --refine`, REFINE_S s, default 240), then issue 5's KDA row with what won.
# One tarball comes back.
here="$(dirname "$0")"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    exec bash "$here/gpu_session62_b.sh"
fi
source "$here/../gpu_env.sh"
export PYTHONPATH=.
refine_fp32_decodes "${REFINE_S:-240}" "kda kimi-linear-48b none"
SUITE_TIMEOUT=120 suite suite kda
pack_out
