#!/usr/bin/env bash
# Session 29, fourth device call: GDN's batch-256, L = 16 decodes re-swept now that the
# records' select past the cursor is gone (their entries predate it; call c measured
# Qwen3.5-4B at 1.71x fla's step, 1.72x is the target), then the whole issue 5 suite
# (every default geometry, batches 1-512, L = 8, 16, 32, graphs and eager) on this
# session's tables (GLA at L = 8 and 32, the batch-64 decodes, the fold entries).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 140 python3 -m replaygen tune --variant gdn --L 16 --kernels replay_decode \
    --batches 256 --budget-s 110 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && cp generated/gdn/tuning.json "$OUT/tables/gdn.json"
grep -E "replay_decode +[0-9]+ |budget" "$OUT/tune.log" | cut -c1-220
timeout 200 python3 -m replaygen bench --eager --budget-s 170 --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep -A8 "^| variant | geometry | L | batch 1" "$OUT/bench/bench.md" | head -20; tail -1 "$OUT/bench.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log bench tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
