#!/usr/bin/env bash
# Session 18, second device call, after call 1 found two kernels that only the compiler
# rejects (the interpreter does not type-check) and a plain verify slowed by the fold's
# registers (Mamba-2 T = 8: 0.33 -> 0.49 ms). Now the folding rows have their own launch
# and compiled kernel (FOLDING; Launch key verify_fold). (1) The speculative GPU tests;
# (2) `replaygen tune --kernels verify_fold` for the benchmark geometries (T = 8, L = 16,
# batch 256 and 512), tables copied to $OUT/tables; (3) issue 3's spec_bench with them,
# and at the previous commit (a17c063, bench/ab_templates/old_tree, carried) for same-run
# ratios.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
timeout 110 python3 -m pytest -q -n 8 -p xdist tests/test_speculative.py --durations=5 \
    > "$OUT/tests.log" 2>&1
tail -4 "$OUT/tests.log"
mkdir -p "$OUT/tables"
for vc in mamba2:nemotron3-nano-4b gdn:qwen3.5-4b kda:kimi-linear-48b gla:gla-1.3b; do
    timeout 85 python3 -m replaygen tune --variant ${vc%%:*} --config ${vc#*:} --L 16 --max-drafts 8 \
        --kernels verify_fold --batches 256,512 --budget-s 55 >> "$OUT/tune.log" 2>&1
    cp generated/${vc%%:*}/tuning.json "$OUT/tables/${vc%%:*}.json"
done
grep -i "verify_fold\|budget\|error" "$OUT/tune.log" | tail -12
timeout 100 python3 bench/spec_bench.py --out "$OUT/spec" --batches 256,512 > "$OUT/spec.log" 2>&1
tail -2 "$OUT/spec.log"
(cd bench/ab_templates/old_tree && REPLAYGEN_COMMIT=a17c063 PYTHONPATH=. timeout 70 python3 bench/spec_bench.py \
    --out "$OUT/spec_old" --batches 256,512 --skip-check --skip-accuracy > "$OUT/spec_old.log" 2>&1)
grep -h "| 256 | \|| 512 | " "$OUT/spec/spec_bench.md" "$OUT/spec_old/spec_bench.md"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log spec spec_old tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
