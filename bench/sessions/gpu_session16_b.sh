#!/usr/bin/env bash
# Session 16, second device call: f2, the fold kernel with its next value tile's checkpoint
# loads issued before the current tile's fold (a register prefetch). Offline sm_90 TTGIR
# (Triton 3.6) showed that in the shipped fold only the records are pipelined (async
# copies): the checkpoint tile feeds the dot's accumulator, which the pipeliner does not
# stream, so each tile's checkpoint load waited a full round trip. ncu (call 1) of Nano's
# T = 8 commit fold: DRAM 74%, L1 88%. Rebuild the folder first:
#   rm -rf bench/ab_templates/f2; cp -r templates bench/ab_templates/f2
#   (cd bench/ab_templates/f2 && patch -p1 < ../../results/session16-2026-12-02/f2.patch)
# (1) the T = 8 fold (flush of L - 1 records, and a commit that folds L) per variant, at
# the tabled launch and at launches f2's registers may prefer; (2) KDA's decode (its
# flush is the queued fold launch) amortised.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
filt() { grep -v Warning "$1" | grep -v "return replaygen\|kern = \|replaygen.load\|^ *$" | tail -"$2"; }
AB=bench/ab_templates
V="templates,$AB/f2,$AB/f2@num_stages=1,$AB/f2@BV=16+num_warps=1,$AB/f2@BV=16+num_warps=2,$AB/f2@BV=32+num_warps=4"
timeout 330 python3 bench/template_ab.py --kernel fold --rounds 3 --out "$OUT/fab" \
    --cases mamba2:nemotron3-nano-4b:fp32,gdn:qwen3.5-4b:fp32,kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 \
    --templates "$V" > "$OUT/fab.log" 2>&1
filt "$OUT/fab.log" 6
timeout 120 python3 bench/template_ab.py --rounds 3 --out "$OUT/dab" \
    --cases kda:kimi-linear-48b:fp32,gdn:qwen3.5-4b:nvfp4 --templates "templates,$AB/f2" > "$OUT/dab.log" 2>&1
filt "$OUT/dab.log" 3
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log fab dab 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
