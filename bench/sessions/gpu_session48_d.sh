#!/usr/bin/env bash
# Session 48, any GPU, one call of ~5 min (issue 3): the probe-row head as built into the
# generator (plan.probe_rows_head, KDA), against the templates before it
# (s48_before_probe_rows.diff), at the table's launch and uncapped (template A/B, T = 8,
# batch 256); then KDA's T = 8 verify swept on this card for the new head (an H100's own
# entry, session 47, caps at 224 registers: the prototype spilled there and gained less),
# and issue 3's KDA row (spec_bench: verify + commit over a decode step, batch 256) with
# the new entry. Commit $OUT/kda_tuning.json where its entry is faster.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
A=bench/ab_templates
folder $A/s48_before bench/proto/s48_before_probe_rows.diff
timeout 200 python3 bench/template_ab.py --kernel verify \
    --templates "$A/s48_before,templates,$A/s48_before@maxnreg=None,templates@maxnreg=None" \
    --cases kda:kimi-linear-48b:fp32 --rounds 3 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -3 "$OUT/ab_verify.log" | cut -c1-400
tune_verify kda kimi-linear-48b 8 ${TUNE_S:-110}
spec_rows kda 8
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name kda_tuning.json -delete && mv /tmp/data.tgz "$OUT/"
