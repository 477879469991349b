#!/usr/bin/env bash
# Session 48, any GPU, one call of ~5 min (issue 3: KDA verify + commit 1.30x a decode step
# on the H200, 1.20x on the H100, against 1.1x; the verify's head phase is as costly as its
# stream, session 38). Template A/B of KDA's T = 8 verify (batch 256, the GPU's table's
# launch for every version, 3 rounds interleaved, checked against the shipped first):
#   templates            shipped: the drafts one at a time, [BK] rows (offline 5824 instr)
#   s48_rows             the drafts as probe rows: one [16, K] input tile (q rows i, k rows
#                        T_MAX + i), one norm per row, keys re-loaded at rows i, the gate
#                        on all 16 rows (the standalone head's form, session 46; 6992)
#   s48_dup              session 47's all-at-once drafts, rows T_MAX + i repeating draft i
#                        (bench/proto/s47_kda_tile_head.diff; 7016)
#   s48_*_noguard        diagnostics only (wrong past 80 nats of drafts' decay): the
#                        window's span guard removed, shipped (4592) and rows (5232), to
#                        size what the guard's exact path costs the fast one
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
V=templates
for n in s48_rows s48_dup s48_shipped_noguard s48_rows_noguard; do
    folder bench/ab_templates/$n bench/proto/$n.diff && V="$V,bench/ab_templates/$n"
done
timeout 400 python3 bench/template_ab.py --kernel verify --templates "$V" \
    --cases kda:kimi-linear-48b:fp32 --rounds 3 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -25 "$OUT/ab_verify.log" | cut -c1-300
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
