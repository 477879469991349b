#!/usr/bin/env bash
# Session 65, ~7 min. On an H200: gpu_session62_b.sh (the grid-order A/Bs against the
# templates before them, the conventional launches re-swept at batch 256, issue 5's rows;
# none of sessions 62-63's orders has run on an H200). On any other card:
# 1. KDA's decode with per-step gate records against the fp32 cumulative ones (issue 5:
#    KDA at 1.58x on the H100 against 1.6x; `kda_gate_ab`, bench/config_ab.py, outputs
#    checked against the tabled cumulative decode: they differ by the gate's rounding,
#    ~3e-3 in bf16). Offline (sm_90, Triton 3.6, BV 8, one warp, 3 stages): the
#    value-tile loop 1598 instructions per tile against 1648, the head phase +528, 255
#    registers against 239 (8 programs per SM either way). The traffic model: the
#    non-flush step at n = 8 3.0% fewer bytes, the amortised 2.7% (byte cap 1.664x ->
#    1.710x). Session 14 timed the same choice even, when the decode ran at 79% of the
#    copy; it now runs at 93%.
# 2. Issue 3's KDA row at T = 8 with per-step gate records (bf16; byte cap 1.042x against
#    1.088x; session 47: the verify 0.3119 against 0.3096 ms before sessions 48-63), and
#    with the default cumulative ones, in the same call.
# One tarball comes back.
here="$(dirname "$0")"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    exec bash "$here/gpu_session62_b.sh"
fi
source "$here/../gpu_env.sh"
export PYTHONPATH=.
kda_gate_ab
# issue 3's KDA row with each gate layout in one call: the step layout's own conventional
# step has no table entry (the plan's launch), so its "x decode" is read against the
# cumulative row's conventional step
for g in cumulative step; do
    SPEC_TIMEOUT=150 spec_rows kda 8 "spec_$g" --gate-records $g
done
pack_out
