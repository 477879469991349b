#!/usr/bin/env bash
# Session 25, third device call: the fold grid's split for commits, flushes and
# materialisations (Kernels.fold_grid_split): GPU tests (speculative, decode, precision,
# devmath), the split swept with its materialisation times and bit-identity checks (GLA at
# batch 64 and 256, Mamba-2 at 256), then spec_bench at T = 8, 4 and 2 (one run each, kernels
# built for max_drafts = T), batch 256 and 512, with its check (T = 2, 4 verifies tuned in calls 1-2).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 260 python3 -m pytest -q -n 14 -p xdist tests/test_speculative.py tests/test_devmath.py \
    tests/test_decode.py tests/test_precision.py > "$OUT/tests.log" 2>&1
tail -3 "$OUT/tests.log"
timeout 100 python3 bench/commit_split_bench.py --variants gla --batches 64,256 \
    --splits 1,2,4,8 --out "$OUT/split_gla" > "$OUT/split_gla.log" 2>&1
timeout 60 python3 bench/commit_split_bench.py --variants mamba2 --batches 256 \
    --splits 1,2 --out "$OUT/split_mamba2" > "$OUT/split_mamba2.log" 2>&1
grep "^|" "$OUT/split_gla/commit_split.md" "$OUT/split_mamba2/commit_split.md" | cut -d: -f2-
# one run per T: kernels built for max_drafts = T, as an engine drafting T tokens would
for T in 8 4 2; do
    timeout 100 python3 bench/spec_bench.py --variants mamba2,gdn,kda,gla --drafts $T \
        --batches 256,512 --skip-accuracy --out "$OUT/spec_t$T" > "$OUT/spec_t$T.log" 2>&1
    grep "^| [a-z]" "$OUT/spec_t$T/spec_bench.md"
done
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log split_gla split_mamba2 spec_t* 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
