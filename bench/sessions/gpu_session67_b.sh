#!/usr/bin/env bash
# Session 67, chained after gpu_session67_a.sh on the same card. On an H200 (with call a's
# re-swept conventional tables copied into generated/*/tuning.json): gpu_session65_b.sh's
# H200 branch (KDA's per-step gate records A/B, issue 4's table, issue 3's rows at T = 8).
# On any other card (~7 min): Mamba-2's two fp32 replay decodes through the phases session
# 66's 150 s refines did not reach (4e-7; Nano stopped in 4f, Super in 4e), PHASE_S s each
# (default 90), then issue 5's Mamba-2 rows (late_phases_then_rows).
here="$(dirname "$0")"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    exec bash "$here/gpu_session65_b.sh"
fi
source "$here/../gpu_env.sh"
export PYTHONPATH=.
late_phases_then_rows mamba2 "${PHASE_S:-90}" nemotron3-nano-4b nemotron3-super-120b
