#!/usr/bin/env bash
# Session 28, second device call. Call a's audit: at batches 1 and 8 every replay decode
# beats its conventional step but GLA's (b1 0.0085 vs 0.0061 ms; b8 0.0137 vs 0.0132) and
# KDA's at batch 8 (stale entries, L = 8 and 16: 0.0204 and 0.0164 vs 0.0146); phase 1b
# kept no stream first for GLA, whose winners split 8 ways (phase 3 dropped the stream
# first; split capped at 8: 32 programs for GLA's 4 value heads at batch 1). Tuner now:
# phase 3 keeps the launch's stream first and register cap, splits up to 32. (1) GLA's
# and KDA's fp32 decodes re-tuned at batches 1 and 8; (2) the issue 5 suite.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 150 python3 -m replaygen tune --variant gla --config gla-1.3b --L 16 \
    --kernels replay_decode --batches 1,8 --budget-s 120 >> "$OUT/tune.log" 2>&1
timeout 200 python3 -m replaygen tune --variant kda --config kimi-linear-48b --L 8,16,32 \
    --kernels replay_decode --batches 1,8 --budget-s 170 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && for v in gla kda; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
grep -E "replay_decode +[0-9]+ |budget" "$OUT/tune.log" | cut -c1-220
timeout 170 python3 -m replaygen bench --variants mamba2,gdn,kda --batches 1,256 --L 16 --budget-s 120 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^mamba2\|^gdn\|^kda" "$OUT/bench.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log bench tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
