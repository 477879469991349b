#!/usr/bin/env bash
# Session 48, any GPU, one call of ~3 min (issue 3's grid): KDA and GDN speculative rows at
# T = 2, 4 and 8 and batch 256 and 512 (spec_bench, no accuracy run) with the probe-row
# head and the solve by products (KDA's value-tile verify; GDN's key-chunked one solves
# row by row).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 400 python3 bench/spec_bench.py --variants kda,gdn --drafts 2,4,8 --batches 256,512 \
    --skip-accuracy --out "$OUT/spec" > "$OUT/spec.log" 2>&1
grep -A14 "^| variant | batch" "$OUT/spec/spec_bench.md" | cut -c1-250
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
