#!/usr/bin/env bash
# Session 22, seventh device call: the printer's reciprocal square roots as tl.math.rsqrt
# (MUFU.RSQ) instead of a division by tl.sqrt. GPU tests (devmath and rsqrt error bounds;
# speculative and decode kernels of every variant), spec_bench at batch 256, T = 8, every
# variant, both protocols, and the issue 5 suite at batch 256, L = 16.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 100 python3 -m pytest -q -n 14 -p xdist tests/test_devmath.py tests/test_speculative.py tests/test_decode.py > "$OUT/tests.log" 2>&1
tail -2 "$OUT/tests.log"; grep -E "^(FAILED|ERROR)|^E  " "$OUT/tests.log" | head -8
V=mamba2,gdn,kda,gla
timeout 40 python3 bench/spec_bench.py --variants $V --drafts 8 --batches 256 --skip-check --skip-accuracy --out "$OUT/spec_default" > "$OUT/spec_default.log" 2>&1
grep "^BENCH\|rror" "$OUT/spec_default.log" | cut -c1-250
timeout 40 python3 bench/spec_bench.py --verify-folds --variants $V --drafts 8 --batches 256 --skip-check --skip-accuracy --out "$OUT/spec_vf" > "$OUT/spec_vf.log" 2>&1
grep "^BENCH\|rror" "$OUT/spec_vf.log" | cut -c1-250
timeout 45 python3 -m replaygen bench --variants mamba2,gdn,kda --batches 256 --L 16 --budget-s 30 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^mamba2\|^gdn\|^kda" "$OUT/bench.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log spec_default spec_vf bench 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
