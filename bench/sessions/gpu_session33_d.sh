#!/usr/bin/env bash
# Prepared in session 32 for session 33, after gpu_session33_a.sh (if its A/B shows the new
# verify no slower): KDA's T = 8 verify launches re-tuned for the new template (batch 256
# and 512, both protocols; copy $OUT/tables/kda.json into generated/kda/tuning.json), then
# issue 3's T = 8 table (KDA 1.367x a decode step in session 25; GDN as the control, its
# verify untouched: the key-chunk template).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 100 python3 -m replaygen tune --variant kda --config kimi-linear-48b --L 16 --max-drafts 8 \
    --kernels verify --batches 256,512 --budget-s 75 >> "$OUT/tune.log" 2>&1
timeout 60 python3 -m replaygen tune --variant kda --config kimi-linear-48b --L 16 --max-drafts 8 \
    --verify-folds --kernels verify_fold --batches 256 --budget-s 35 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && cp generated/kda/tuning.json "$OUT/tables/kda.json"
grep "T8" "$OUT/tune.log" | tail -6
timeout 100 python3 bench/spec_bench.py --variants kda,gdn --drafts 8 --batches 256,512 \
    --skip-accuracy --out "$OUT/spec_t8" > "$OUT/spec_t8.log" 2>&1
grep "^| [a-z]" "$OUT/spec_t8/spec_bench.md"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log spec_t8 tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
