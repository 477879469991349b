#!/usr/bin/env bash
# Session 66, chained after gpu_session66_a.sh on the same card. On an H200 (with call a's
# re-swept conventional tables copied into generated/*/tuning.json): gpu_session65_b.sh's
# H200 branch (KDA's per-step gate records A/B, issue 4's table, issue 3's rows at T = 8).
# On any other card (~8 min): GDN's two fp32 replay decodes (issue 5: 1.67x and 1.70x on
# the H100 against 1.72x) refined through every phase (REFINE_S s each, default 150;
# session 65's 30 s refines stopped before phase 2b), then issue 5's GDN rows.
# One tarball comes back.
here="$(dirname "$0")"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    exec bash "$here/gpu_session65_b.sh"
fi
source "$here/../gpu_env.sh"
export PYTHONPATH=.
refine_fp32_decodes "${REFINE_S:-150}" "gdn qwen3.5-4b none" "gdn qwen3.5-122b-a10b none"
SUITE_TIMEOUT=120 suite suite gdn
pack_out
