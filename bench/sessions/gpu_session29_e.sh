#!/usr/bin/env bash
# Session 29, fifth device call: the batch-8, L = 8 decodes of KDA and GDN (call d's suite:
# 0.96x, 0.99x and 1.03x the conventional step, where their L = 16 decodes are 1.23-1.65x)
# re-swept with their siblings' launches as incumbents (Job.siblings).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
for v in kda gdn; do
    timeout 70 python3 -m replaygen tune --variant $v --L 8 --kernels replay_decode \
        --batches 8 --budget-s 45 >> "$OUT/tune.log" 2>&1
done
mkdir -p "$OUT/tables" && for v in gdn kda; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
grep -E "phase 1:|replay_decode +[0-9]+ |budget" "$OUT/tune.log" | cut -c1-220
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
