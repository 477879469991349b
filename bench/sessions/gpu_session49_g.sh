#!/usr/bin/env bash
# Session 49, any GPU, one call of ~5 min (issue 3): KDA with verify_folds=True (the verify
# folds the rows whose drafts would pass L in a launch of its own; the byte model's verify
# + commit is then 0.975x a decode step's bytes at T = 8, against 1.088x for the default
# protocol). Issue 3's KDA row with it (spec_bench --verify-folds, check included) at the
# tables' launches (the H100 has no verify_folds entries: the H200's stand in), then its
# T = 8 verify, verify_fold and commit swept on this card, and the row again.
# Commit $OUT/kda_tuning.json where its entries win.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 100 python3 bench/spec_bench.py --variants kda --drafts 8 --batches 256 --verify-folds \
    --skip-accuracy --out "$OUT/spec_vf_before" > "$OUT/spec_vf_before.log" 2>&1
grep -E "^\| kda" "$OUT/spec_vf_before/spec_bench.md"
timeout 190 python3 -m replaygen tune --variant kda --config kimi-linear-48b --L 16 --max-drafts 8 \
    --verify-folds --kernels verify,verify_fold,commit --batches 256 --budget-s 150 >> "$OUT/tune.log" 2>&1
grep -E "^phase|budget|replaygen tune:| 256 " "$OUT/tune.log" | cut -c1-200
cp generated/kda/tuning.json "$OUT/kda_tuning.json"
timeout 100 python3 bench/spec_bench.py --variants kda --drafts 8 --batches 256 --verify-folds \
    --skip-accuracy --out "$OUT/spec_vf" > "$OUT/spec_vf.log" 2>&1
grep -E "^\| kda" "$OUT/spec_vf/spec_bench.md"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name "*_tuning.json" -delete && mv /tmp/data.tgz "$OUT/"
