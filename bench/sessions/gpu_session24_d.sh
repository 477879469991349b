#!/usr/bin/env bash
# Session 24, fifth device call: the committed tree (the one-pass flush reverted; CAP = L
# for speculative configurations). GPU tests of the decode and speculative kernels;
# spec_bench at T = 8, batch 256 and 512, default protocol (with the correctness check),
# and with verify_folds at batch 256; the issue 5 suite at batch 1 and 256, L = 16.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 130 python3 -m pytest -q -n 14 -p xdist tests/test_devmath.py tests/test_speculative.py tests/test_decode.py > "$OUT/tests.log" 2>&1
tail -2 "$OUT/tests.log"; grep -E "^(FAILED|ERROR)|^E  " "$OUT/tests.log" | head -8
V=mamba2,gdn,kda,gla
timeout 150 python3 bench/spec_bench.py --variants $V --drafts 8 --batches 256,512 --skip-accuracy --out "$OUT/spec_default" > "$OUT/spec_default.log" 2>&1
grep "^BENCH\|rror\|CHECK" "$OUT/spec_default.log" | cut -c1-260
timeout 80 python3 bench/spec_bench.py --variants $V --drafts 8 --batches 256 --verify-folds --skip-check --skip-accuracy --out "$OUT/spec_vf" > "$OUT/spec_vf.log" 2>&1
grep "^BENCH\|rror" "$OUT/spec_vf.log" | cut -c1-260
timeout 160 python3 -m replaygen bench --variants mamba2,gdn,kda --batches 1,256 --L 16 --budget-s 120 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^mamba2\|^gdn\|^kda" "$OUT/bench.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log spec_default spec_vf bench 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
