#!/usr/bin/env bash
# Session 67, ~5 min: the short call for when too little device time is left for
# gpu_session67_a.sh (sessions 64-67 lost 450-1,050 s each to failed asks). On an H200:
# issue 5's rows (the suite, batch 256, L = 16: the last H200 rows are session 61's), then
# issue 3's KDA row at T = 8. On any other card: GDN 4B's fp32 decode, the H100's row
# furthest below 1.72x, through phases 4e-7 (PHASE_S s, default 90), then GDN's rows.
here="$(dirname "$0")"
source "$here/../gpu_env.sh"
export PYTHONPATH=.
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    SUITE_TIMEOUT=200 suite suite gdn,mamba2,kda
    SPEC_TIMEOUT=100 spec_rows kda 8
    pack_out
else
    late_phases_then_rows gdn "${PHASE_S:-90}" qwen3.5-4b
fi
