#!/usr/bin/env bash
# Session 26, second device call. (1) GDN 4B's fp32 + NVFP4 decode re-tuned with the
# current tuner (phase 2b's register caps: call 1's A/B measured the tabled launch at 128
# registers 1.126x faster non-flush, 1.060x amortised). (2) The commit's own launch at
# T = 2, every variant at batch 256.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
tune_decode gdn qwen3.5-4b nvfp4 150
grep -E "replay_decode +256" "$OUT/tune.log" | tail -3
for V in gla:gla-1.3b kda:kimi-linear-48b gdn:qwen3.5-4b mamba2:nemotron3-nano-4b; do
    timeout 55 python3 -m replaygen tune --variant ${V%%:*} --config ${V##*:} --L 16 \
        --max-drafts 2 --kernels commit --batches 256 --budget-s 28 >> "$OUT/tune.log" 2>&1
done
grep " commit  *[0-9]" "$OUT/tune.log"
mkdir -p "$OUT/tables" && for v in gdn kda gla mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
