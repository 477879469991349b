#!/usr/bin/env bash
# Session 31, after call g: GDN Qwen3.5-4B's other batch-256 / 512 decodes of the suite's
# grid swept with the tuner's phase 2e (the flushing programs first; it won batch 256 at
# L = 16, call f): batch 512 at L = 16, batch 256 at L = 8 and 32.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 150 python3 -m replaygen tune --variant gdn --config qwen3.5-4b --L 16 --kernels replay_decode \
    --batches 512 --budget-s 120 >> "$OUT/tune.log" 2>&1
timeout 250 python3 -m replaygen tune --variant gdn --config qwen3.5-4b --L 8,32 --kernels replay_decode \
    --batches 256 --budget-s 220 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && cp generated/gdn/tuning.json "$OUT/tables/gdn.json"
grep -E "^phase 2e|replay_decode +(256|512) |budget" "$OUT/tune.log" | cut -c1-220
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
