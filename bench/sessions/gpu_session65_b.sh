#!/usr/bin/env bash
# Session 65, chained after gpu_session65_a.sh on the same card. On an H200 (with call
# a's re-swept conventional tables copied into generated/*/tuning.json): KDA's per-step
# gate records A/B (as gpu_session65_a.sh's other branch), issue 4's table and issue 3's
# rows at T = 8. On any other card (~9 min): the fp32 replay decodes of the five issue-5
# geometries refined from their tabled launches under sessions 62-63's grid orders
# (`tune --refine`, REFINE_S s each; tables to $OUT/tables), then issue 5's rows with the
# refined tables (the tune writes them into this copy's generated/*/tuning.json).
# One tarball comes back.
here="$(dirname "$0")"
source "$here/../gpu_env.sh"
export PYTHONPATH=.
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    kda_gate_ab
    issue4_table table
    SPEC_TIMEOUT=${SPEC_TIMEOUT:-120} spec_rows gdn,mamba2,kda,gla 8
else
    refine_fp32_decodes "${REFINE_S:-40}"
    SUITE_TIMEOUT=170 suite suite gdn,mamba2,kda
fi
pack_out
