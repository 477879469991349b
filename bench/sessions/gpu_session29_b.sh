#!/usr/bin/env bash
# Session 29, second device call. (1) GLA's fp32 decodes at L = 8 and 32, batches 1 and 8,
# re-swept with the same configuration's launches at other ring lengths as incumbents
# (Job.siblings): call a's sweep, started from the batch-256 entries, kept a separate
# flush at batch 1 and stayed slower than the conventional step there (L = 8 0.77x, L = 32
# 0.88x), where L = 16's entry is 1.4x faster than it. Then the same cells timed again.
# (2) The fold entries audited (table_audit, every batch; never audited since their
# sweeps). (3) The read-copy decodes at batch 256 audited after the records' redundant
# select was dropped (plan.zero_past_cursor; their tables predate it).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 150 python3 -m replaygen tune --variant gla --config gla-1.3b --L 8,32 \
    --kernels replay_decode --batches 1,8 --budget-s 120 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && for v in gdn mamba2 kda gla; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
grep -E "phase 1:|replay_decode +[0-9]+ |budget" "$OUT/tune.log" | tail -8
timeout 50 python3 -m replaygen bench --variants gla --L 8,32 --batches 1,8 --eager \
    --out "$OUT/gla_after" > "$OUT/gla_after.log" 2>&1
grep -A5 "^| variant | geometry | L | batch 1" "$OUT/gla_after/bench.md"
timeout 220 python3 bench/table_audit.py --out "$OUT/audit_fold" --kernels fold \
    --batches 1,8,64,256,512 > "$OUT/audit_fold.log" 2>&1
grep -E "stale|plan$" "$OUT/audit_fold.log" | cut -c1-220; tail -2 "$OUT/audit_fold.log"
timeout 90 python3 bench/table_audit.py --out "$OUT/audit_read" --kernels replay_decode \
    --batches 256 --match read > "$OUT/audit_read.log" 2>&1
grep " replay_decode 256:" "$OUT/audit_read.log" | cut -c1-200; tail -2 "$OUT/audit_read.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log gla_* audit_* tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
