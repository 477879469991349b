#!/usr/bin/env bash
# Session 38: KDA's and GLA's T = 8 verify in two launches (Launch.head_launch, built this
# session; issue 3: KDA 1.31-1.36x a decode step against 1.1x, its verify reading the
# checkpoint at ~40% of the decode's bandwidth, and no tile in flight while a program does
# its head phase). Versions: the tabled one-launch verify; the same launch split, its
# head launch at the launch's warps and at four (Launch.head_warps: no spill), and at 2
# stages (the stream launch alone holds the pipeline's shared memory); and two
# timing-only prototypes of the split launch, wrong by design (the check column says
# so; nothing is applied):
#   F = bench/proto/s38_verify_stream_floor.diff: the head launch does nothing: the
#       stream launch's time (its workspace read included);
#   H = bench/proto/s38_verify_head_only.diff: the stream launch streams nothing: the
#       head launch's time (its workspace write included).
# The split versions' check must read ~0 against the tabled one. Then the GPU tests of
# the two launches (bit-level agreement with one launch; the float64 reference through
# windows that fold).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
F=bench/ab_templates/s38_floor && folder $F bench/proto/s38_verify_stream_floor.diff
H=bench/ab_templates/s38_head && folder $H bench/proto/s38_verify_head_only.diff
V=templates,templates@head_launch=1,templates@head_launch=1+head_warps=4
V=$V,templates@head_launch=1+head_warps=4+num_stages=2,$F@head_launch=1,$H@head_launch=1
timeout 400 python3 bench/template_ab.py --kernel verify --templates $V --rounds 3 \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --out "$OUT/ab_floor" > "$OUT/ab_floor.log" 2>&1
tail -4 "$OUT/ab_floor.log" | cut -c1-400
timeout -s INT -k 20 100 python3 -m pytest -q -n 8 -p xdist -rf tests/test_speculative.py \
    -k "two_launches" > "$OUT/tests38.log" 2>&1
grep -E "^FAILED|passed|failed" "$OUT/tests38.log" | tail -4
