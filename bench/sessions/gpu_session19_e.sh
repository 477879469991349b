#!/usr/bin/env bash
# Session 19, fifth device call, after a verify_folds commit runs as few warps per program
# as hold its widest record tile (one for Mamba-2, GDN, KDA; call 4 at four warps:
# Mamba-2's 24576 programs took 0.026 ms per T = 8 step): (1) the verify_folds GPU tests
# (the commit's barrier at one warp); (2) the per-kernel breakdown of the staggered T = 8
# step; (3) spec_bench with verify_folds at T = 8, batch 256 and 512.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 100 python3 -m pytest -q -n 8 -p xdist tests/test_speculative.py -k "verify_folds or several_warps" > "$OUT/tests.log" 2>&1
tail -3 "$OUT/tests.log"
timeout 100 python3 bench/spec_breakdown.py --out "$OUT/breakdown" --cycles 10 > "$OUT/breakdown.log" 2>&1
grep "sum / graph\|fold_kernel" "$OUT/breakdown/spec_breakdown.md"
timeout 80 python3 bench/spec_bench.py --verify-folds --drafts 8 --skip-check --skip-accuracy --out "$OUT/spec_vf" > "$OUT/spec_vf.log" 2>&1
grep "^BENCH" "$OUT/spec_vf.log" | cut -c1-330
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log breakdown spec_vf 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
