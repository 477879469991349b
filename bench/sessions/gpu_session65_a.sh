#!/usr/bin/env bash
# Session 65, ~7-8 min. On an H200: gpu_session62_b.sh (the grid-order A/Bs against the
# templates before them, the conventional launches re-swept at batch 256, issue 5's rows;
# none of sessions 62-63's orders has run on an H200). On any other card:
# 1. KDA's decode with per-step bf16 gate records against the fp32 cumulative ones
#    (issue 5: KDA at 1.58x on the H100 against 1.6x; `kda_gate_ab`, bench/config_ab.py,
#    outputs checked against the tabled cumulative decode: they differ by the bf16
#    gate's rounding, ~3e-3). Offline (sm_90, Triton 3.6, BV 8, one warp, 3 stages): the
#    value-tile loop 1598 instructions per tile against 1648, the head phase +528, 255
#    registers against 239 (8 programs per SM either way). The traffic model: the
#    non-flush step at n = 8 3.0% fewer bytes, the amortised 2.7% (byte cap 1.664x ->
#    1.710x). Session 14 timed the same choice even, when the decode ran at 79% of the
#    copy; it now runs at 93%.
# 2. The fp32 replay decodes of the five issue-5 geometries refined from their tabled
#    launches (`tune --refine`, REFINE_S s each), tables to $OUT/tables.
# One tarball comes back.
here="$(dirname "$0")"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    exec bash "$here/gpu_session62_b.sh"
fi
source "$here/../gpu_env.sh"
export PYTHONPATH=.
kda_gate_ab
refine_decodes "${REFINE_S:-40}" "gdn qwen3.5-4b none" "gdn qwen3.5-122b-a10b none" \
    "mamba2 nemotron3-nano-4b none" "mamba2 nemotron3-super-120b none" "kda kimi-linear-48b none"
grep -E "__state_fp32__rec_bf16.* replay_decode +256 " "$OUT/tune.log" | cut -c1-240
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
