#!/usr/bin/env bash
# Session 31, after call e (the flushing programs first paid only for GDN Qwen3.5-4B:
# amortised 0.1725 -> 0.1692 ms at every 2nd position; the others 1-11% slower). GDN 4B's
# batch-256, L = 16 decode swept with the tuner's phase 2e, then the suite's GDN rows
# (batch 256, L = 16) against fla with that table, in the same call.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 200 python3 -m replaygen tune --variant gdn --config qwen3.5-4b --L 16 --kernels replay_decode \
    --batches 256 --budget-s 150 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && for v in gdn mamba2 kda gla; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
grep -E "^phase|replay_decode +256 " "$OUT/tune.log" | cut -c1-220
timeout 200 python3 -m replaygen bench --variants gdn --L 16 --batches 256 --out "$OUT/suite" > "$OUT/suite.log" 2>&1
grep -E "^\| gdn " "$OUT/suite/bench.md" | head -4
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log tables suite 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
