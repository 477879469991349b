#!/usr/bin/env bash
# Prepared in session 30 for session 31: the batch-256, L = 16 decodes of GDN and Mamba-2
# swept with the tuner's phase 2d (the flush in one pass, at the launch's own register cap
# and the caps that fit more programs); then bench/sessions/gpu_session31_c.sh (the suite).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
for v in gdn mamba2; do
    timeout 230 python3 -m replaygen tune --variant $v --L 16 --kernels replay_decode \
        --batches 256 --budget-s 200 >> "$OUT/tune.log" 2>&1
done
mkdir -p "$OUT/tables" && for v in gdn mamba2 kda gla; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
grep -E "^phase|replay_decode +256 |budget" "$OUT/tune.log" | cut -c1-220
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
