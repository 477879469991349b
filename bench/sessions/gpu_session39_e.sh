#!/usr/bin/env bash
# Session 39, call e (issue 3). With the drafts' loads at once (10c5ffd) KDA's T = 8 verify
# is still latency-bound at 8 one-warp programs per SM (ncu: 1.95 warps per scheduler,
# issue slots 17% busy), held there by 233 registers and 26-28 KB of shared memory (the
# head's product operands). Offline (sm_90) the shipped kernel now takes a register cap
# with little spill (2 stages, cap 168: 192 B; it was ~600 B), but its shared memory still
# holds 8 per SM; session 36's prototypes move the records' product S_c and cut the shared
# memory (sc_first: 16.4 KB at 2 stages, 12 per SM at cap 168 with 664 B of spill;
# sc_late: 18.9 KB, 11 per SM at cap 184, 468 B). The A/B of the tabled verify and those
# launches; then issue 3's T = 8 table (on an H200, the first since 10c5ffd).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
folder() {   # folder NAME DIFF: the templates with DIFF applied
    rm -rf "$1" && mkdir -p "$1" && cp templates/*.j2 "$1"/ && patch -s -d "$1" -p2 < "$2"
}
S1=bench/ab_templates/s36_sc_first && folder $S1 bench/proto/s36_verify_sc_first.diff
S2=bench/ab_templates/s36_sc_late && folder $S2 bench/proto/s36_verify_sc_late_loads.diff
V=templates,templates@num_stages=2+maxnreg=168,$S1@num_stages=2+maxnreg=168,$S1@num_stages=2+maxnreg=184
V=$V,$S2@num_stages=2+maxnreg=184
timeout 150 python3 bench/template_ab.py --kernel verify --templates $V --rounds 3 \
    --cases kda:kimi-linear-48b:fp32 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -1 "$OUT/ab_verify.log" | cut -c1-400
timeout 120 python3 bench/spec_bench.py --variants kda,gla --drafts 8 --batches 256 --skip-accuracy \
    --out "$OUT/spec" > "$OUT/spec.log" 2>&1
grep "^| kda\|^| gla" "$OUT/spec.log"
