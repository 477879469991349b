#!/usr/bin/env bash
# Session 53, any GPU, <= 8 min. On an H200 (none since session 41): issue 3's rows of every
# variant and KDA's T = 8 verify re-swept there (gpu_session49_f.sh, into $OUT/f), then
# issue 5's suite at batch 256. On any card, then: the suite for Mamba-2 at batches 64, 256
# and 512, which times session 52's Nano batch-512 entry (the tuner's 0.886 ms; no suite
# run has timed it). Everything comes back in one tarball (a call returns at most 8 files),
# plus $OUT/kda_tuning.json where 49_f wrote it (commit it where its entry wins).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if grep -q "H200" "$OUT/gpu.txt"; then
    OUT=$OUT/f bash "$(dirname "$0")/gpu_session49_f.sh"
    mv "$OUT"/f/*_tuning.json "$OUT/" 2>/dev/null
    SUITE_TIMEOUT=120 suite suite_h200 gdn,mamba2,kda
fi
timeout 150 python3 -m replaygen bench --variants mamba2 --L 16 --batches 64,256,512 \
    --out "$OUT/suite_mamba2" > "$OUT/suite_mamba2.log" 2>&1
grep -E "^\| mamba2 " "$OUT/suite_mamba2/bench.md" | head -6 | cut -c1-200
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name "*_tuning.json" -delete && mv /tmp/data.tgz "$OUT/"
