#!/usr/bin/env bash
# Session 27, fifth device call: GLA's fp32 decode re-tuned (call 4's audit: its table
# entry, tuned 2026-12-01, claims 0.185 ms; the runtime takes 0.291 and the plan's launch
# 0.272, so the entry went stale), its fp16-SR + NVFP4 decode re-tuned with the word path
# and fold splits up to 32, then issue 4's GLA timings with the new tables.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
tune_decode gla gla-1.3b none 120
tune_decode gla gla-1.3b nvfp4 90 sr
grep -E "replay_decode +256|budget" "$OUT/tune.log" | tail -6
timeout 120 python3 bench/precision_bench.py --out "$OUT/prec" --variants gla \
    --checks fp32+nvfp4 > "$OUT/prec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/prec/precision_bench.md"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log prec tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
