#!/usr/bin/env bash
# Session 61, <= 9 min, any card: whichever card comes gets the work planned for it.
# - H200: gpu_session60_d.sh (issue 4's table, the read-copy decodes refined through
#   phases 4d-4f, the table again).
# - H100: gpu_session60_e.sh (GDN 4B FP8 through phases 4d-4f, the fp16-SR NVFP4 decodes
#   through 4f). Not gpu_session61_a.sh: offline (session 61) the value-tile decode runs
#   ~2,870 instructions per Nano program (5 tiles x 395 + ~890 outside the loop) against
#   the key chunks' ~1,620 (4 x 225 + ~720), and the decode is instruction-bound.
# Each script sources bench/gpu_env.sh and packs its own tarball.
here="$(dirname "$0")"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    bash "$here/gpu_session60_d.sh"
else
    bash "$here/gpu_session60_e.sh"
fi
