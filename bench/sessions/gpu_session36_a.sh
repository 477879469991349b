#!/usr/bin/env bash
# Session 36: the value-tile verify's occupancy. Offline (bench/sass_count.py, sm_90,
# Triton 3.6; bench/results/session36-2026-12-05/) every KDA verify launch holds 8 programs
# per SM, bound by shared memory (26.6-28.2 KB at 1-3 stages) as much as by registers
# (226 at T = 8): Triton stages a dot's operand in shared memory where it is computed, so
# the records' keys kw wait there through the drafts' loop, and the stream's P_ck and M_v
# are placed above the head's buffers. The tuner's register caps (phase 2b) could therefore
# never add a program per SM. Two prototypes move the product S_c of the committed records:
#   S1 = bench/proto/s36_verify_sc_first.diff: S_c before the window's product: 20.0 KB at
#        3 stages; caps 184 / 168 give 11 / 12 programs per SM (spills 172 / 228 B);
#   S2 = bench/proto/s36_verify_sc_late_loads.diff: S_c between the window and the solve,
#        its records loaded there: 18.9 KB at 2 stages; cap 184 gives 11 (16 B spill).
# On a tree patched with session 35's stream_first (s35_verify_stream_first.diff, never
# timed: loans were paused), one A/B of KDA's T = 8 verify, then GLA's (a value-tile verify
# too; offline the prototypes only add spill there). Session 35's script is folded in: its
# versions are here, its re-tune in gpu_session36_b.sh.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
patch -s -p1 < bench/proto/s35_verify_stream_first.diff && python3 -m replaygen build --all > /dev/null
A=bench/ab_templates/s35_all && folder $A bench/proto/s35_verify_prefetch_all.diff
S1=bench/ab_templates/s36_sc_first && folder $S1 bench/proto/s36_verify_sc_first.diff
S2=bench/ab_templates/s36_sc_late && folder $S2 bench/proto/s36_verify_sc_late_loads.diff
V=templates,templates@stream_first=1,$A@stream_first=1,$S1@maxnreg=184,$S1@num_stages=2+maxnreg=168
V=$V,$S2@num_stages=2+maxnreg=184,$S2@num_stages=2+maxnreg=200,$S2@stream_first=1+num_stages=2+maxnreg=184
timeout 300 python3 bench/template_ab.py --kernel verify --templates $V --rounds 3 \
    --cases kda:kimi-linear-48b:fp32 --out "$OUT/ab_verify_kda" > "$OUT/ab_verify_kda.log" 2>&1
tail -10 "$OUT/ab_verify_kda.log" | cut -c1-260
V=templates,templates@stream_first=1,$S1,$S2
timeout 200 python3 bench/template_ab.py --kernel verify --templates $V --rounds 3 \
    --cases gla:gla-1.3b:fp32 --out "$OUT/ab_verify_gla" > "$OUT/ab_verify_gla.log" 2>&1
tail -6 "$OUT/ab_verify_gla.log" | cut -c1-260
