#!/usr/bin/env bash
# Session 49, any GPU, one call of ~3 min (issue 3): does KDA's T = 8 verify gain from more
# checkpoint tiles in flight, at fewer programs per SM? ncu (call E): 39.6% of its stall
# samples wait for the next tile, two in flight per program at 3 stages and 8 programs per
# SM. Template A/B at the table's launch (BV 16, one warp): 3 (the table), 4 and 5
# stages, and the z-sum window (s49_zsum_templates.diff: 2.5 KB less shared memory) at 4
# and 5 stages. Call A's sweep of the z-sum build picked 4 stages (0.3071 ms). Then issue
# 3's KDA row with spec_bench's bandwidth table (2b37e72).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
A=bench/ab_templates
folder $A/s49_zsum bench/proto/s49_zsum_templates.diff
timeout 200 python3 bench/template_ab.py --kernel verify --cases kda:kimi-linear-48b:fp32 --rounds 3 \
    --templates "templates,templates@num_stages=4,templates@num_stages=5,$A/s49_zsum@num_stages=4,$A/s49_zsum@num_stages=5" \
    --out "$OUT/ab_stages" > "$OUT/ab_stages.log" 2>&1
tail -2 "$OUT/ab_stages.log" | cut -c1-600
SPEC_TIMEOUT=80 spec_rows kda 8
grep -A8 "^## Bandwidth" "$OUT/spec/spec_bench.md"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
