#!/usr/bin/env bash
# Session 26, fourth device call: the read-copy decodes of the per-channel variants (KDA,
# GLA; value tiles) had no tuned launch at batch 256 (they ran the plan's since
# 2026-11-29): fp32 + NVFP4 and fp32 + FP8 (row scales) tuned for each.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
tune_decode kda kimi-linear-48b nvfp4 85
tune_decode kda kimi-linear-48b fp8 85
tune_decode gla gla-1.3b nvfp4 85
tune_decode gla gla-1.3b fp8 85
cp generated/gla/tuning.json "$OUT/tables/gla.json"
grep -E "replay_decode +256|budget" "$OUT/tune.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
