#!/usr/bin/env bash
# Session 23, first device call (issue 5): reciprocal square roots on MUFU.RSQ (session 22's
# call7/rsqrt.patch) with the tuner's register caps (phase 2b) extended to the decode.
# GPU tests of every variant; the batch-256, L = 16 decode launches of GDN 4B, KDA and
# Mamba-2 Nano re-tuned; spec_bench at batch 256, T = 8 (both protocols); the issue 5
# suite at batch 256, L = 16.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 110 python3 -m pytest -q -n 14 -p xdist tests/test_devmath.py tests/test_speculative.py tests/test_decode.py > "$OUT/tests.log" 2>&1
tail -2 "$OUT/tests.log"; grep -E "^(FAILED|ERROR)|^E  " "$OUT/tests.log" | head -8
tune_decode gdn qwen3.5-4b none 110
tune_decode kda kimi-linear-48b none 60
tune_decode mamba2 nemotron3-nano-4b none 60
grep "L16__state_fp32__rec" "$OUT/tune.log" | grep replay_decode | tail -6
V=mamba2,gdn,kda,gla
timeout 40 python3 bench/spec_bench.py --variants $V --drafts 8 --batches 256 --skip-check --skip-accuracy --out "$OUT/spec_default" > "$OUT/spec_default.log" 2>&1
grep "^BENCH\|rror" "$OUT/spec_default.log" | cut -c1-250
timeout 40 python3 bench/spec_bench.py --verify-folds --variants $V --drafts 8 --batches 256 --skip-check --skip-accuracy --out "$OUT/spec_vf" > "$OUT/spec_vf.log" 2>&1
grep "^BENCH\|rror" "$OUT/spec_vf.log" | cut -c1-250
timeout 60 python3 -m replaygen bench --variants mamba2,gdn,kda --batches 256 --L 16 --budget-s 40 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^mamba2\|^gdn\|^kda" "$OUT/bench.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log spec_default spec_vf bench tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
