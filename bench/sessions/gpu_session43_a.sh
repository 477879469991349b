#!/usr/bin/env bash
# (Kept as the record of what ran: s42_kda_verify_head.diff landed, derived, as 8786c2f and
# was removed from bench/proto (it is at 76a1997); this script ran as call 2 of session 43.)
# For session 43 (issue 3), any GPU (~7 min; on an H100 with the H200's tables: ratios
# only). Two offline prototypes of session 42, timed:
# 1. bench/proto/s42_kda_verify_head.diff (templates/verify.py.j2): the value-tile verify's
#    drafts-vs-drafts window split at n, sharing S_c's probe operand P_w; rows past T_MAX
#    masked statically; offline sm_90 KDA T = 8: 6136 -> 5752 instructions, head phase
#    4154 -> 3790, 233 -> 246 registers (8 programs per SM either way). Interpreter:
#    outputs within 7e-7 of the shipped templates. A template A/B (both versions get the
#    same printer).
# 2. bench/proto/s42_printer_sub.diff (replaygen/printer.py): -a + b printed as b - a
#    (bit-identical; no unary minus, Triton's 0 - x): KDA verify 6136 -> 6000, KDA fp32
#    decode 2464 -> 2400 (but 16 B of spill at its tabled cap of 168), GLA decode 1544 ->
#    1480. Python, not templates: the same A/B before and after the patch, in one call.
# Apply what wins: the printer diff with `git apply`, `replaygen build --all`, commit;
# the verify diff likewise (then move its template arithmetic into plan.py: dG and the
# two exps belong with plan.draft_weight, sympy-derived).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
grep -q H200 "$OUT/gpu.txt" || export REPLAYGEN_TUNING_GPU="NVIDIA H200"
K=bench/ab_templates/s42_kda
folder $K bench/proto/s42_kda_verify_head.diff || { echo "the verify diff does not apply"; exit 3; }
ab() {   # ab NAME: the verify A/B and the decodes of KDA and GLA, logs under $OUT/NAME
    timeout 130 python3 bench/template_ab.py --kernel verify --templates "templates,$K" --rounds 3 \
        --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --out "$OUT/$1_verify" > "$OUT/$1_verify.log" 2>&1
    grep "^kda\|^gla" "$OUT/$1_verify.log" | cut -c1-300
    timeout 80 python3 bench/template_ab.py --templates templates --rounds 3 \
        --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --out "$OUT/$1_decode" > "$OUT/$1_decode.log" 2>&1
    grep "^kda\|^gla" "$OUT/$1_decode.log" | cut -c1-300
}
echo "== before the printer patch"; ab before
git apply bench/proto/s42_printer_sub.diff && python3 -m replaygen build --all > /dev/null || exit 3
echo "== after"; ab after
