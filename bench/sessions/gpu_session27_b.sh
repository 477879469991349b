#!/usr/bin/env bash
# Session 27, second device call: GLA's read-copy decodes re-tuned with >= 140 s each
# (as call 1 did KDA's), and KDA's fp16-SR + NVFP4 decode with the word path (phase 4b).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
tune_decode gla gla-1.3b nvfp4 150
tune_decode gla gla-1.3b fp8 140
tune_decode kda kimi-linear-48b nvfp4 110 sr
grep -E "replay_decode +256|budget" "$OUT/tune.log" | tail -40
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
