#!/usr/bin/env bash
# Session 67, ~7 min. On an H200: gpu_session62_b.sh (the grid-order A/Bs against the
# templates before them, the conventional launches re-swept at batch 256, issue 5's rows;
# none of sessions 62-63's orders has run on an H200). On any other card: GDN's two fp32
# replay decodes through the phases session 66's 150 s refines did not reach (4e-7; 4B
# stopped in 4e, 122B in 5), PHASE_S s each (default 90), then issue 5's GDN rows
# (late_phases_then_rows). KDA's refine ran every phase in session 66 and kept its launch.
here="$(dirname "$0")"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    exec bash "$here/gpu_session62_b.sh"
fi
source "$here/../gpu_env.sh"
export PYTHONPATH=.
late_phases_then_rows gdn "${PHASE_S:-90}" qwen3.5-4b qwen3.5-122b-a10b
