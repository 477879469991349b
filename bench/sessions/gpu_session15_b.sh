#!/usr/bin/env bash
# Session 15, second device call. Call 1: the flattened verify stream (vk1) at 3 stages
# made Mamba-2 Nano's T = 8 verify 9% faster ([16, 128]/w1/s3/h4: 0.3793 -> 0.3468 ms) and
# every GDN launch slower (0.2187 tabled; 3 stages at 6 programs per SM 0.2526). Here:
# (1) Nano: is it the flattening or the stages (the shipped template at 3 and 4 stages),
# and its heads per program at 3 stages; (2) GDN 4B: the launch axes that change programs
# per SM (2 warps, one head, a register cap), to see what bounds its verify; (3) below.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
filt() { grep -v Warning "$1" | grep -v "return replaygen\|kern = \|replaygen.load\|^ *$" | tail -"$2"; }
AB=bench/ab_templates
timeout 150 python3 bench/template_ab.py --kernel verify --cases mamba2:nemotron3-nano-4b:fp32 --rounds 3 \
    --out "$OUT/vab_nano" --templates "templates,templates@num_stages=3,$AB/vk1@num_stages=3,templates@num_stages=3+heads=2,templates@num_stages=3+heads=6,templates@num_stages=4" \
    > "$OUT/vab_nano.log" 2>&1
filt "$OUT/vab_nano.log" 4
timeout 120 python3 bench/template_ab.py --kernel verify --cases gdn:qwen3.5-4b:fp32 --rounds 3 \
    --out "$OUT/vab_gdn" --templates "templates,templates@num_warps=2,templates@num_warps=2+num_stages=3,templates@heads=1,templates@maxnreg=168" \
    > "$OUT/vab_gdn.log" 2>&1
filt "$OUT/vab_gdn.log" 4
# (3) Nano's T = 8 verify re-tuned at batches 256 and 512 (the tabled launches are kept
# unless beaten: phase 1 re-times them)
timeout 200 python3 -m replaygen tune --variant mamba2 --config nemotron3-nano-4b --L 16 --max-drafts 8 \
    --kernels verify --batches 256,512 --budget-s 170 > "$OUT/tune.log" 2>&1
tail -4 "$OUT/tune.log"; mkdir -p "$OUT/tables"; cp generated/mamba2/tuning.json "$OUT/tables/mamba2.json"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log vab_* tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
