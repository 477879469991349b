#!/usr/bin/env bash
# Session 19, third device call, after a verify_folds commit launches one warp per
# program (call 2: 0.016-0.027 ms per staggered T = 8 step at the fold's launch, for a
# record move): (1) the speculative GPU tests; (2) the per-kernel breakdown of the
# staggered T = 8 step; (3) spec_bench with verify_folds (check, T = 2, 4, 8 at batch 256
# and 512, accuracy over 16 windows) for every variant.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 140 python3 -m pytest -q -n 8 -p xdist tests/test_speculative.py > "$OUT/tests.log" 2>&1
tail -3 "$OUT/tests.log"
timeout 120 python3 bench/spec_breakdown.py --out "$OUT/breakdown" --cycles 10 > "$OUT/breakdown.log" 2>&1
grep "sum / graph\|fold_kernel" "$OUT/breakdown/spec_breakdown.md"
timeout 170 python3 bench/spec_bench.py --verify-folds --out "$OUT/spec_vf" > "$OUT/spec_vf.log" 2>&1
grep "^BENCH.*\"T\": 8" "$OUT/spec_vf.log" | cut -c1-330
grep "^ACCURACY\|^CHECK" "$OUT/spec_vf.log" | cut -c1-300
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log breakdown spec_vf 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
