#!/usr/bin/env bash
# Session 13, second device call: template A/B (bench/template_ab.py; the folders are
# described in bench/results/session13-2026-12-02/README.md).
#  pf2 / pfs: the fused flush's second pass over the checkpoint (key-chunk decode) and the
#    fold launch's value-tile loop software-pipelined (tl.range, 2 stages; pfs: the
#    decode's flush at STREAM_STAGES). Both were plain range loops: a memory round trip per
#    chunk (per tile in the fold). Offline sm_90: GDN [64, 32]/w1/s3 226 -> 210 / 214
#    registers; the GDN NVFP4 fold 128 -> 156.
#  kda-v1 / kda-v2: the KDA value-tile decode's stream pipelined by tl.range, and (v2) its
#    head-level work inside the first iteration so the stream's prologue goes out first.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
timeout 340 python3 bench/template_ab.py --templates templates,bench/ab_templates/pf2,bench/ab_templates/pfs \
    --cases gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-nano-4b:fp32,mamba2:nemotron3-super-120b:fp32,gdn:qwen3.5-4b:nvfp4,mamba2:nemotron3-nano-4b:nvfp4,gdn:qwen3.5-4b:fp8 \
    --out "$OUT/ab" > "$OUT/ab.log" 2>&1
grep -v Warning "$OUT/ab.log" | grep -v "return replaygen\|kern = \|replaygen.load" | tail -9
timeout 170 python3 bench/template_ab.py --templates ${KDA_VERSIONS:-templates,bench/ab_templates/pf2,bench/ab_templates/kda-v1,bench/ab_templates/kda-v2,bench/ab_templates/kda-v2@maxnreg=152} \
    --cases kda:kimi-linear-48b:fp32 --out "$OUT/ab_kda" > "$OUT/ab_kda.log" 2>&1
grep -v Warning "$OUT/ab_kda.log" | grep -v "return replaygen\|kern = \|replaygen.load" | tail -4
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d ab ab_kda *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
