#!/usr/bin/env bash
# Prepared in session 29 for session 30's first device call (NOTES, "Next (for session
# 30's GPU time)", items 1 and 2). (1) GLA's L = 8 / 32 decodes at batches 64 and 512
# re-swept with their siblings' launches (call a of session 29 tuned them without), then
# the L = 8 cells of GDN and KDA at batch 8 (re-swept after session 29's suite) and GLA's
# L = 8 / 32 cells timed as the suite times them. (2) The speculative tables (T = 2, 4, 8:
# verify, verify_fold, commit at batches 256 and 512), never audited, re-timed through
# the runtime's lookup; flagged configurations re-swept.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 130 python3 -m replaygen tune --variant gla --config gla-1.3b --L 8,32 \
    --kernels replay_decode --batches 64,512 --budget-s 100 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && for v in gdn mamba2 kda gla; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
grep -E "replay_decode +[0-9]+ |budget" "$OUT/tune.log" | cut -c1-220
timeout 80 python3 -m replaygen bench --variants gdn,kda --L 8 --batches 8 --out "$OUT/l8" \
    > "$OUT/l8.log" 2>&1
grep -A5 "^| variant | geometry | L | batch 1\|^| variant | geometry | L | batch 8" "$OUT/l8/bench.md" | head -8
timeout 300 python3 bench/table_audit.py --out "$OUT/audit_spec" \
    --kernels verify,verify_fold,commit --batches 256,512 --retune 30 > "$OUT/audit_spec.log" 2>&1
for v in gdn mamba2 kda gla; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
grep -E "stale|plan$|^python" "$OUT/audit_spec.log" | cut -c1-220; tail -2 "$OUT/audit_spec.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log l8 audit_* tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
