#!/usr/bin/env bash
# Session 45, H200 only, one call of ~7-8 min: fresh H200 evidence for issues 5 and 3 on
# the current main (the last issue-5 suite ran on 575b7bf, session 31; issue 3's last
# table on session 41's tree). 1. Issue 5's rows: `replaygen bench` for GDN, Mamba-2 and
# KDA at L = 16, batches 1, 256 and 512 (every real geometry; fla when carried). 2. Issue
# 3: spec_bench at T = 2, 4, 8 (one run per T), batches 256 and 512, the four variants.
# Everything comes back in data.tgz.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
grep -q H200 "$OUT/gpu.txt" || { echo "not an H200: nothing run"; exit 3; }
timeout 240 python3 -m replaygen bench --variants gdn,mamba2,kda --L 16 --batches 1,256,512 \
    --out "$OUT/suite" > "$OUT/suite.log" 2>&1
grep -E "^\| (gdn|mamba2|kda) " "$OUT/suite/bench.md" | head -20 | cut -c1-230
for T in 8 4 2; do
    timeout 110 python3 bench/spec_bench.py --variants kda,gla,gdn,mamba2 --drafts $T --batches 256,512 \
        --skip-accuracy --out "$OUT/spec_T$T" > "$OUT/spec_T$T.log" 2>&1
    grep -A10 "^| variant | batch" "$OUT/spec_T$T/spec_bench.md" | cut -c1-200
done
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
