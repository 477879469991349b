#!/usr/bin/env bash
# Session 18, first device call: the verify that folds (plan.VERIFY_FOLDS: a verify whose
# drafts would pass L committed records folds them into the checkpoint it is reading,
# and the commit moves the accepted drafts to the ring's start). (1) The speculative GPU
# tests (several-warp verify and commit launches, the real geometries); (2) issue 3's
# spec_bench at batch 256 and 512 with the accuracy run, and (3) the same bench at the
# previous commit (a17c063, `git archive` into bench/ab_templates/old_tree, carried) in
# the same call, for same-run ratios.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
timeout 200 python3 -m pytest -q -n 8 -p xdist tests/test_speculative.py --durations=5 \
    > "$OUT/tests.log" 2>&1
tail -8 "$OUT/tests.log"
timeout 150 python3 bench/spec_bench.py --out "$OUT/spec" --batches 256,512 > "$OUT/spec.log" 2>&1
tail -3 "$OUT/spec.log"
(cd bench/ab_templates/old_tree && REPLAYGEN_COMMIT=a17c063 PYTHONPATH=. timeout 120 python3 bench/spec_bench.py \
    --out "$OUT/spec_old" --batches 256,512 --skip-check --skip-accuracy > "$OUT/spec_old.log" 2>&1)
tail -3 "$OUT/spec_old.log"
grep -h "| 256 | 8 |" "$OUT/spec/spec_bench.md" "$OUT/spec_old/spec_bench.md"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log spec spec_old 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
