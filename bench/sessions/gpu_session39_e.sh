#!/usr/bin/env bash
# Session 39, call e (issue 3; not run in session 39: its device time was spent). With the
# drafts' loads at once (10c5ffd) KDA's T = 8 verify is still latency-bound at 8 one-warp
# programs per SM (ncu, H100: 1.95 warps per scheduler, issue slots 17% busy), held there by
# 233 registers and 28 KB of shared memory. The shared memory is the head's product
# operands, which Triton stages where each is computed: the records' keys kw from before the
# drafts' loop to the records' product S_c (over the window's two operands), P_ck from
# before S_c through the stream. L = bench/proto/s39_verify_records_before_product.diff:
# the records' block right before S_c (G_t still before the drafts), P_ck after the solve's
# M_x. Offline (sm_90): 2 stages, 18.9 KB of shared memory; with cap 184, 11 programs per
# SM (64 B of spill; cap 168: 132 B); at the tabled 3 stages still 28 KB, 8 per SM. Also
# session 36's sc_first at 2 stages and cap 168 (12 per SM, 664 B of spill). Then issue
# 3's T = 8 table (on an H200, the first since 10c5ffd).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
L=bench/ab_templates/s39_records_before_product && folder $L bench/proto/s39_verify_records_before_product.diff
S1=bench/ab_templates/s36_sc_first && folder $S1 bench/proto/s36_verify_sc_first.diff
V=templates,templates@num_stages=2+maxnreg=168,$L,$L@num_stages=2,$L@num_stages=2+maxnreg=184
V=$V,$L@num_stages=2+maxnreg=168,$S1@num_stages=2+maxnreg=168
timeout 170 python3 bench/template_ab.py --kernel verify --templates $V --rounds 3 \
    --cases kda:kimi-linear-48b:fp32 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -1 "$OUT/ab_verify.log" | cut -c1-500
timeout 100 python3 bench/template_ab.py --kernel verify --templates templates,$L --rounds 3 \
    --cases gla:gla-1.3b:fp32 --out "$OUT/ab_verify_gla" > "$OUT/ab_verify_gla.log" 2>&1
tail -1 "$OUT/ab_verify_gla.log" | cut -c1-300
timeout 100 python3 bench/template_ab.py --kernel verify_fold --templates templates,$L --rounds 3 \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --out "$OUT/ab_fold" > "$OUT/ab_fold.log" 2>&1
tail -2 "$OUT/ab_fold.log" | cut -c1-300
timeout 120 python3 bench/spec_bench.py --variants kda,gla --drafts 8 --batches 256 --skip-accuracy \
    --out "$OUT/spec" > "$OUT/spec.log" 2>&1
grep "^| kda\|^| gla" "$OUT/spec.log"
