#!/usr/bin/env bash
# Session 22, sixth device call: GLA's T = 8 verify re-tuned with devmath (call 2 measured
# its tabled launch 0.1829 -> 0.1917 ms, not re-tuned since), then spec_bench for GLA at
# batch 256, T = 8, both protocols.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 115 python3 -m replaygen tune --variant gla --config gla-1.3b --L 16 --max-drafts 8 \
    --kernels verify --batches 256 --budget-s 85 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && cp generated/gla/tuning.json "$OUT/tables/gla.json"
grep "T8" "$OUT/tune.log" | tail -2
timeout 60 python3 bench/spec_bench.py --variants gla --drafts 8 --batches 256 --skip-accuracy --out "$OUT/spec_default" > "$OUT/spec_default.log" 2>&1
grep "^BENCH\|^CHECK\|rror" "$OUT/spec_default.log" | cut -c1-300
timeout 60 python3 bench/spec_bench.py --verify-folds --variants gla --drafts 8 --batches 256 --skip-check --skip-accuracy --out "$OUT/spec_vf" > "$OUT/spec_vf.log" 2>&1
grep "^BENCH\|rror" "$OUT/spec_vf.log" | cut -c1-300
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log spec_default spec_vf tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
