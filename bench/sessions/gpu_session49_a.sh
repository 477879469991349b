#!/usr/bin/env bash
# Session 49, any GPU, one call of ~8 min (issue 3): the value-tile verify's window through
# the solve once per program (a tile's outputs and records as one sum of three products,
# Z = P_z·Cᵀ + S_z·W_c + D_z·V_d, the key-chunked verify's form) against the templates
# before it (s49_before_zsum.diff), template A/B of KDA's and GLA's T = 8 verify at batch
# 256, the GPU's table's launch, 3 rounds; then KDA's T = 8 verify swept with it, and issue
# 3's rows for every variant (spec_bench, T = 8, batch 256). Commit $OUT/kda_tuning.json
# where its entry wins. It ran (call A) on the tree with bench/proto/s49_zsum.diff applied
# (`git apply bench/proto/s49_zsum.diff && python -m replaygen build --all`); the change
# was neutral (KDA 0.999x, GLA 1.003x) and is not on main.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
A=bench/ab_templates
folder $A/s49_before bench/proto/s49_before_zsum.diff
timeout 200 python3 bench/template_ab.py --kernel verify --templates "$A/s49_before,templates" \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --rounds 3 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -4 "$OUT/ab_verify.log" | cut -c1-400
tune_verify kda kimi-linear-48b 8 100
SPEC_TIMEOUT=180 spec_rows mamba2,gdn,kda,gla 8
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name "*_tuning.json" -delete && mv /tmp/data.tgz "$OUT/"
