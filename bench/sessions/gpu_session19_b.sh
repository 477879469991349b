#!/usr/bin/env bash
# Session 19, second device call, after (a) the folding verify skips the committed
# records' product (S_c = 0 there; call 1: KDA's folding launch 0.817 -> 0.748 ms) and
# (b) a verify_folds commit compiled without the fold's code (it never folds; call 1:
# 0.027-0.055 ms per step, 168 -> 32 registers offline): (1) the speculative GPU tests,
# both protocols; (2) the per-kernel breakdown of the staggered T = 8 step; (3) the folding
# launch re-tuned for KDA and GDN (batch 256); (4) spec_bench with verify_folds, T = 8.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 150 python3 -m pytest -q -n 8 -p xdist tests/test_speculative.py > "$OUT/tests.log" 2>&1
tail -3 "$OUT/tests.log"
timeout 150 python3 bench/spec_breakdown.py --out "$OUT/breakdown" --cycles 10 > "$OUT/breakdown.log" 2>&1
grep "sum / graph" "$OUT/breakdown/spec_breakdown.md"
mkdir -p "$OUT/tables"
for vc in kda:kimi-linear-48b gdn:qwen3.5-4b; do
    timeout 85 python3 -m replaygen tune --variant ${vc%%:*} --config ${vc#*:} --L 16 --max-drafts 8 \
        --verify-folds --kernels verify_fold --batches 256 --budget-s 60 >> "$OUT/tune.log" 2>&1
    cp generated/${vc%%:*}/tuning.json "$OUT/tables/${vc%%:*}.json"
done
grep "T8vf" "$OUT/tune.log" | tail -6
timeout 120 python3 bench/spec_bench.py --verify-folds --drafts 8 --batches 256,512 --skip-check \
    --skip-accuracy --out "$OUT/spec_vf" > "$OUT/spec_vf.log" 2>&1
grep "^BENCH" "$OUT/spec_vf.log" | cut -c1-400
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log breakdown tables spec_vf 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
