#!/usr/bin/env bash
# Session 40, calls 3-4 (issue 4; after gpu_session40_a.sh, if the records' scores once
# per program win): `gpu_session40_b.sh gdn qwen3.5-4b` (or mamba2 nemotron3-nano-4b)
# re-tunes that geometry's FP8 row and NVFP4 read copies' key-chunk decodes at batch 256
# (the lighter stream may prefer other tiles), then times the tuned decodes with the fp32
# read (template_ab, one version: the check and the times) for issue 4's ratios. Tunes
# only on an H200 (the table's name); on another GPU only the timing runs.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
V=$1 G=$2
if grep -q H200 "$OUT/gpu.txt"; then
    tune_decode $V $G fp8 ${TUNE_S:-100}
    tune_decode $V $G nvfp4 ${TUNE_S:-100}
    grep -E "state_fp32__read_(fp8row|nvfp4)__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | tail -2 | cut -c1-250
fi
timeout 220 python3 bench/template_ab.py --templates templates --rounds 3 \
    --cases $V:$G:fp8,$V:$G:nvfp4,$V:$G:fp32 --out "$OUT/ab_tuned_$V" > "$OUT/ab_tuned_$V.log" 2>&1
grep "^$V" "$OUT/ab_tuned_$V.log" | cut -c1-300
