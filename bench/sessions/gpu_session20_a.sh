#!/usr/bin/env bash
# Session 20, first device call: the key-chunk verify's checkpoint product with the
# probes as the mma's A operand (xf1: X = P · Cᵀ, probe rows as M; the tabled one-warp
# launches: offline sm_90, GDN's stream loop 560 -> 447 instructions, 212 -> 81 register
# moves, shared memory 23.0 -> 18.4 KiB, registers 168 -> 254; Mamba-2 612 -> 531, 166 ->
# 233), against templates/, at the tabled launch and register caps; plain rows (verify)
# and folding rows (verify_fold, also at one warp). bench/ab_templates/xf1 carried.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
A=bench/ab_templates/xf1
timeout 300 python3 bench/template_ab.py --kernel verify --rounds 3 \
    --templates templates,templates@maxnreg=168,$A,$A@maxnreg=168,$A@maxnreg=200 \
    --cases gdn:qwen3.5-4b:fp32,mamba2:nemotron3-nano-4b:fp32,gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-super-120b:fp32 \
    --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -30 "$OUT/ab_verify.log"
timeout 200 python3 bench/template_ab.py --kernel verify_fold --rounds 3 \
    --templates templates,$A,templates@BV=16+num_warps=1+num_stages=2,$A@BV=16+num_warps=1+num_stages=2,$A@BV=16+num_warps=1+num_stages=2+maxnreg=168 \
    --cases gdn:qwen3.5-4b:fp32,mamba2:nemotron3-nano-4b:fp32 \
    --out "$OUT/ab_vf" > "$OUT/ab_vf.log" 2>&1
tail -20 "$OUT/ab_vf.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab_verify ab_vf 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
