#!/usr/bin/env bash
# Session 48, any GPU, one call of ~2.5 min (issue 3): the window solve by products shared
# by both verify templates (m.window_solve; GDN's key-chunked verify took its inverse by
# substitution until now: offline at its cap-168 entry 3560 -> 4008 instructions and a
# 28 B spill), against the templates before it (s48_before_shared_solve.diff), template
# A/B of the T = 8 verifies of GDN 4B and KDA at batch 256, also uncapped; then issue 3's
# rows of both (spec_bench, T = 8, batch 256).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
A=bench/ab_templates
folder $A/s48_before_shared bench/proto/s48_before_shared_solve.diff
timeout 300 python3 bench/template_ab.py --kernel verify \
    --templates "$A/s48_before_shared,templates,$A/s48_before_shared@maxnreg=None,templates@maxnreg=None" \
    --cases gdn:qwen3.5-4b:fp32,kda:kimi-linear-48b:fp32 --rounds 3 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -4 "$OUT/ab_verify.log" | cut -c1-400
SPEC_TIMEOUT=150 spec_rows gdn,kda 8
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
