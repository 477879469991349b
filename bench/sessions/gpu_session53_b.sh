#!/usr/bin/env bash
# Session 53, any GPU, <= 9.5 min: the card's own fp32 decode entries at batches 64 and 512
# for the geometries that have only a batch-256 entry on the H100 (KDA Kimi-Linear 48B:
# 74% / 87% of the copy at 64 / 512 in session 52's suite; GDN Qwen3.5-122B: 79% / 87%),
# swept for TUNE_S seconds each, then the suite's rows at 64, 256 and 512 with the new
# entries. The suite before is session 52's call E (the same commit's kernels). Commit
# $OUT/tables/{kda,gdn}.json where the suite's rows win. One tarball comes back (a call
# returns at most 8 files).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
TUNE_BATCHES=64,512 tune_decode kda kimi-linear-48b none ${TUNE_S:-140}
TUNE_BATCHES=64,512 tune_decode gdn qwen3.5-122b-a10b none ${TUNE_S:-140}
grep -E "replay_decode +(64|512) |budget" "$OUT/tune.log" | cut -c1-220
timeout 150 python3 -m replaygen bench --variants gdn,kda --L 16 --batches 64,256,512 \
    --out "$OUT/suite_after" > "$OUT/suite_after.log" 2>&1
grep -E "^\| (gdn|kda) " "$OUT/suite_after/bench.md" | cut -c1-200
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
