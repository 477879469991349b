#!/usr/bin/env bash
# Session 21, fourth device call: GLA's T = 8 verify launch re-tuned (call 3's budget was
# spent compiling), then spec_bench for KDA and GLA at T = 8, batch 256: the default
# protocol with its check against the reference and the 16-window accuracy run, and
# verify_folds timed.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 115 python3 -m replaygen tune --variant gla --config gla-1.3b --L 16 --max-drafts 8 \
    --kernels verify --batches 256 --budget-s 85 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && cp generated/gla/tuning.json "$OUT/tables/gla.json"
grep "T8" "$OUT/tune.log" | tail -3
timeout 170 python3 bench/spec_bench.py --variants kda,gla --drafts 8 --batches 256 --out "$OUT/spec_default" > "$OUT/spec_default.log" 2>&1
grep "^BENCH\|^CHECK\|rror" "$OUT/spec_default.log" | cut -c1-300 | tail -12
timeout 100 python3 bench/spec_bench.py --verify-folds --variants kda,gla --drafts 8 --batches 256 --skip-check --skip-accuracy --out "$OUT/spec_vf" > "$OUT/spec_vf.log" 2>&1
grep "^BENCH\|rror" "$OUT/spec_vf.log" | cut -c1-300 | tail -6
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log spec_default spec_vf tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
