#!/usr/bin/env bash
# Session 23, third device call: the committed tree (flush pass last-chunk-first with
# evict-first stores, tables of call 1). GPU tests of the decode, devmath and speculative
# kernels; the issue 5 suite at batch 1 and 256, L = 16; spec_bench at batch 256, T = 8.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 110 python3 -m pytest -q -n 14 -p xdist tests/test_devmath.py tests/test_speculative.py tests/test_decode.py > "$OUT/tests.log" 2>&1
tail -2 "$OUT/tests.log"; grep -E "^(FAILED|ERROR)|^E  " "$OUT/tests.log" | head -8
timeout 150 python3 -m replaygen bench --variants mamba2,gdn,kda --batches 1,256 --L 16 --budget-s 110 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^mamba2\|^gdn\|^kda" "$OUT/bench.log"
V=mamba2,gdn,kda,gla
timeout 60 python3 bench/spec_bench.py --variants $V --drafts 8 --batches 256 --skip-accuracy --out "$OUT/spec_default" > "$OUT/spec_default.log" 2>&1
grep "^BENCH\|rror" "$OUT/spec_default.log" | cut -c1-250
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log spec_default bench 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
