#!/usr/bin/env bash
# Session 39, call b (issue 3: KDA's T = 8 verify at 1.31-1.36x a decode step, 1.1x wanted).
# Offline (sm_90, Triton 3.6) the value-tile verify's drafts' loop waits on memory once per
# input per draft: each draft's q and k are re-laid out through shared memory (vector loads
# in 4-wide blocks, the [BT, BK] tiles' columns one per thread per block, a barrier each),
# and each draft's ring stores stand between its loads and the next draft's (a store may
# alias them), so KDA's program runs ~16 dependent rounds of loads before its window. Two
# prototypes:
#   D = bench/proto/s39_verify_loads_first.diff: the head phase's key-axis inputs loaded
#       with contiguity 1 (the tiles' own column layout: no re-layout, 42 -> 20 barriers;
#       the stream keeps its vector loads), the drafts' rows read without waiting for n_d,
#       and their records stored after the loop from [BT, BK] tiles: every draft's loads
#       issue at once. KDA 6224 -> 6152 instructions, 226 -> 244 registers (8 programs per
#       SM either way); GLA at four warps 3944 -> 3400, 232 B of spill -> none, 77 -> 27
#       barriers; KDA's head launch 255 registers and 80 B of spill -> 233, none.
#   F = bench/proto/s39_verify_loads_first_records_late.diff: D with the committed records
#       loaded after the drafts' loop (the drafts' loads then issue first; 255 registers,
#       40 B of spill).
# (1) the T = 8 verify A/B (template_ab: outputs checked against the tabled version, then
# CUDA-graph medians), also in two launches (head_launch); (2) the folding rows' launch;
# (3) D applied to the tree: its GPU speculative tests and issue 3's T = 8 table.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
D=bench/ab_templates/s39_loads_first && folder $D bench/proto/s39_verify_loads_first.diff
F=bench/ab_templates/s39_records_late && folder $F bench/proto/s39_verify_loads_first_records_late.diff
V=templates,$D,$F,templates@head_launch=1,$D@head_launch=1
timeout 200 python3 bench/template_ab.py --kernel verify --templates $V --rounds 3 \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -3 "$OUT/ab_verify.log" | cut -c1-330
timeout 120 python3 bench/template_ab.py --kernel verify_fold --templates templates,$D,$F --rounds 3 \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --out "$OUT/ab_fold" > "$OUT/ab_fold.log" 2>&1
tail -3 "$OUT/ab_fold.log" | cut -c1-330
patch -s -p1 < bench/proto/s39_verify_loads_first.diff && python3 -m replaygen build --all > /dev/null
timeout -s INT -k 20 110 python3 -m pytest -q -n 16 -p xdist -rf tests/test_speculative.py \
    -k "kda or gla" > "$OUT/tests.log" 2>&1
grep -E "^FAILED|passed|failed" "$OUT/tests.log" | tail -4
timeout 150 python3 bench/spec_bench.py --variants kda,gla --drafts 8 --batches 256 --skip-accuracy \
    --out "$OUT/spec" > "$OUT/spec.log" 2>&1
tail -12 "$OUT/spec.log" | cut -c1-200
