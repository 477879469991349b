#!/usr/bin/env bash
# Session 48, any GPU, one call of ~2.5 min (issue 3): the verify's solve by products as
# built into the generator (plan.solve_squarings, tf32x3), against the templates before it
# (s48_before_solve_products.diff: substitution row by row) and before the probe-row head
# too (both diffs), template A/B of KDA's T = 8 verify at batch 256, the GPU's table's
# launch, 3 rounds; then issue 3's rows for every variant (spec_bench, T = 8, batch 256).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
A=bench/ab_templates
folder $A/s48_subst bench/proto/s48_before_solve_products.diff
folder $A/s48_before_both bench/proto/s48_before_solve_products.diff \
    && patch -s -d $A/s48_before_both -p2 < bench/proto/s48_before_probe_rows.diff
timeout 200 python3 bench/template_ab.py --kernel verify --templates "$A/s48_before_both,$A/s48_subst,templates" \
    --cases kda:kimi-linear-48b:fp32 --rounds 3 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -3 "$OUT/ab_verify.log" | cut -c1-400
SPEC_TIMEOUT=200 spec_rows mamba2,gdn,kda,gla 8
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
