#!/usr/bin/env bash
# Session 24, sixth device call: the committed tree (CAP = L for speculative
# configurations). spec_bench's accuracy run (16 windows of T = 8 with random acceptance,
# fp32 records for GDN too) and its timings at T = 2 and 4, batch 256 and 512, default
# protocol.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
V=mamba2,gdn,kda,gla
timeout 150 python3 bench/spec_bench.py --variants $V --drafts 8 --skip-check --skip-bench --out "$OUT/spec_accuracy" > "$OUT/spec_accuracy.log" 2>&1
grep "^ACCURACY\|rror" "$OUT/spec_accuracy.log" | cut -c1-300
timeout 220 python3 bench/spec_bench.py --variants $V --drafts 2,4 --batches 256,512 --skip-check --skip-accuracy --out "$OUT/spec_t24" > "$OUT/spec_t24.log" 2>&1
grep "^BENCH\|rror" "$OUT/spec_t24.log" | cut -c1-230
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log spec_accuracy spec_t24 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
