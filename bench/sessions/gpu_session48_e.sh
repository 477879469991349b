#!/usr/bin/env bash
# Session 48, any GPU, one call of ~1.5 min (issue 3, KDA T = 8 verify with the probe-row
# head, H100 0.3194 ms, call D). Template A/B at batch 256, the GPU's table's launch, 3
# rounds, checked first:
#   s48_neumann_ieee / _tf32x3   the solve (I + A)^-1 = (I - A)(I + A^2)(I + A^4) by five
#                 [16, 16] products (fp32 FMAs / three tf32 passes) in place of T_MAX = 8
#                 dependent steps of row-by-row substitution (offline 7384 / 7312 instr
#                 against 6936; what it would save is latency, not instructions)
#   s48_noguard   diagnostic only (wrong past 80 nats of drafts' decay): the window's span
#                 guard removed, what it costs the probe-row head
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
A=bench/ab_templates
V=templates
for n in s48_neumann_ieee s48_neumann_tf32x3 s48_noguard; do
    folder $A/$n bench/proto/$n.diff && V="$V,$A/$n"
done
timeout 300 python3 bench/template_ab.py --kernel verify --templates "$V" \
    --cases kda:kimi-linear-48b:fp32 --rounds 3 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -3 "$OUT/ab_verify.log" | cut -c1-400
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
