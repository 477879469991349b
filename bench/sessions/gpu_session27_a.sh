#!/usr/bin/env bash
# Session 27, first device call. (1) The value-tile word products (Launch.read_words,
# 4aabde1) on the GPU, where each word's products are summed in fp16: the precision tests
# that name them. (2) KDA's read-copy decodes re-tuned with >= 150 s each (session 26's
# 85 s tunes stopped before phases 4b-6; 4b is the word path).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 90 python3 -m pytest -q -n 8 -p xdist tests/test_precision.py -k "word_products or tuned_value_tile" \
    > "$OUT/tests.log" 2>&1
tail -5 "$OUT/tests.log"
tune_decode kda kimi-linear-48b nvfp4 165
tune_decode kda kimi-linear-48b fp8 150
grep -E "replay_decode +256|budget|phase" "$OUT/tune.log" | tail -40
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
