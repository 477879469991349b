#!/usr/bin/env bash
# Prepared in session 29 for session 30 (NOTES, "Next (for session 30's GPU time)", item
# 3): does the placement of the flushing programs in a decode launch cost time? One
# launch per placement (first / spread / last in the launch order, none, all), each
# default geometry at batch 256, L = 16 (bench/flush_tail.py). If `spread - first` is
# under ~5 us, the balanced in-launch fold of item 3 (a) cannot pay.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 200 python3 bench/flush_tail.py --out "$OUT/flush_tail" > "$OUT/flush_tail.log" 2>&1
cat "$OUT/flush_tail/flush_tail.md" 2>/dev/null || tail -20 "$OUT/flush_tail.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log flush_tail 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
