#!/usr/bin/env bash
# Session 26, seventh device call (the last ~5 device minutes): the fp16-SR + NVFP4
# decodes of KDA and GLA, untuned like their fp32-checkpoint read copies were (call 6:
# 0.58x and 1.12x the fp32 read non-flush, 0.74x and 0.62x the conventional step
# amortised). The tuner's own plan-vs-tuned timings are the measurement.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
tune_decode kda kimi-linear-48b nvfp4 80 sr
tune_decode gla gla-1.3b nvfp4 80 sr
grep -E "replay_decode +256|budget" "$OUT/tune.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
