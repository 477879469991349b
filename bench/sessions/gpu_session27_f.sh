#!/usr/bin/env bash
# Session 27, sixth device call (the last ~7 device minutes): is GLA's stale fp32 entry
# alone? The audit over GLA's entries at the other batch buckets, then its fp32 decode at
# L = 8 and 32 (batch 256) re-tuned.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
for B in 1 8 64 512; do
    timeout 60 python3 bench/table_audit.py --out "$OUT/audit_b$B" --variants gla --batch $B \
        --match state_fp32__rec > "$OUT/audit_b$B.log" 2>&1
    grep "replay_decode" "$OUT/audit_b$B.log"
done
timeout 170 python3 -m replaygen tune --variant gla --config gla-1.3b --L 8,32 \
    --kernels replay_decode --batches 256 --budget-s 140 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && cp generated/gla/tuning.json "$OUT/tables/gla.json"
grep -E "replay_decode +256|budget" "$OUT/tune.log" | tail -6
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log audit_b* tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
