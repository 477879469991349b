#!/usr/bin/env bash
# Session 61, <= 9 min, any card: whichever card comes gets the work planned for it.
# - H200: gpu_session60_d.sh (issue 4's table, the read-copy decodes refined through
#   phases 4d-4f, the table again).
# - H100: gpu_session61_a.sh (the value-tile NVFP4 decode against the tabled key chunks);
#   phase 4f on the H100 ran in session 60 already.
# Each script sources bench/gpu_env.sh and packs its own tarball.
here="$(dirname "$0")"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    bash "$here/gpu_session60_d.sh"
else
    bash "$here/gpu_session61_a.sh"
fi
