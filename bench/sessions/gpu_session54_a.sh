#!/usr/bin/env bash
# Session 54, any GPU, <= 9 min: the card's own fp32 decode entries where the H100's suite is
# weakest and no entry of its own exists (NOTES, "Next (for session 54's GPU time)" item 3):
# Mamba-2 Nano at batches 64 and 512 (84-87% of the copy, session 53) and KDA Kimi-Linear
# 48B at batches 1 and 8 (55% at 8), swept for TUNE_S seconds each, then the suite's rows at
# 1, 8, 64, 256 and 512 for both. The suite before is session 53's / 52's (same kernels).
# Commit $OUT/tables/{mamba2,kda}.json where the suite's rows win. One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
TUNE_BATCHES=64,512 tune_decode mamba2 nemotron3-nano-4b none ${TUNE_S:-140}
TUNE_BATCHES=1,8 tune_decode kda kimi-linear-48b none ${TUNE_S:-120}
grep -E "replay_decode +(1|8|64|512) |budget" "$OUT/tune.log" | cut -c1-220
timeout 190 python3 -m replaygen bench --variants mamba2,kda --L 16 --batches 1,8,64,256,512 --budget-s 140 \
    --out "$OUT/suite_after" > "$OUT/suite_after.log" 2>&1
grep -E "^\| (mamba2|kda) " "$OUT/suite_after/bench.md" | cut -c1-200
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
