#!/usr/bin/env bash
# Session 18, third device call: verify_folds is now an opt-in configuration choice
# (load(..., verify_folds=True), names __T8vf; default: the commit folds, as before).
# (1) The speculative GPU tests, both protocols; (2) `replaygen tune --verify-folds
# --kernels verify_fold` for the benchmark geometries (T = 8, L = 16, batch 256 and 512),
# tables copied to $OUT/tables; (3) issue 3's spec_bench, default kernels and
# --verify-folds, in the same call.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
timeout 150 python3 -m pytest -q -n 12 -p xdist tests/test_speculative.py --durations=5 \
    > "$OUT/tests.log" 2>&1
tail -4 "$OUT/tests.log"
mkdir -p "$OUT/tables"
for vc in mamba2:nemotron3-nano-4b gdn:qwen3.5-4b kda:kimi-linear-48b gla:gla-1.3b; do
    timeout 70 python3 -m replaygen tune --variant ${vc%%:*} --config ${vc#*:} --L 16 --max-drafts 8 \
        --verify-folds --kernels verify_fold --batches 256 --budget-s 45 >> "$OUT/tune.log" 2>&1
    cp generated/${vc%%:*}/tuning.json "$OUT/tables/${vc%%:*}.json"
done
grep "verify_fold  " "$OUT/tune.log" | tail -8
timeout 75 python3 bench/spec_bench.py --out "$OUT/spec" --batches 256 --drafts 4,8 --skip-accuracy \
    > "$OUT/spec.log" 2>&1
timeout 75 python3 bench/spec_bench.py --out "$OUT/spec_vf" --batches 256 --drafts 4,8 --skip-accuracy \
    --verify-folds > "$OUT/spec_vf.log" 2>&1
grep -h "| 256 | " "$OUT/spec/spec_bench.md" "$OUT/spec_vf/spec_bench.md"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log spec spec_vf tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
