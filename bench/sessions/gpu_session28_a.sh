#!/usr/bin/env bash
# Session 28, first device call. (1) GLA's fp32 decode at batches 1 and 8 re-tuned with
# tuner phase 1b's value-tile stream-first (built in session 27, untimed): GLA's replay
# step at batch 1 (0.0086 ms tabled) is slower than its conventional step (0.0070).
# (2) The table audit over every batch-1 and batch-8 entry of the replay and conventional
# decodes (they predate sessions 13-25's template changes; GLA's were stale).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 150 python3 -m replaygen tune --variant gla --config gla-1.3b --L 16 \
    --kernels replay_decode --batches 1,8 --budget-s 120 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && cp generated/gla/tuning.json "$OUT/tables/gla.json"
grep -E "replay_decode +[0-9]+ |budget|stream" "$OUT/tune.log" | tail -8
timeout 360 python3 bench/table_audit.py --out "$OUT/audit" --batches 1,8 \
    --kernels replay_decode,conventional_decode > "$OUT/audit.log" 2>&1
grep -E "stale|plan$" "$OUT/audit.log"; wc -l < "$OUT/audit.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log audit tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
