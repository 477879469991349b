#!/usr/bin/env bash
# Session 22, fifth device call: the decode and precision GPU tests of every variant with
# devmath through libdevice (call 2 ran them with the inline-assembly version), and the
# issue 5 suite for Mamba-2 at batch 256, L = 16 and every variant at batch 1 (where
# `decode` must never be slower than the conventional kernel), with this tree's tables.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 150 python3 -m pytest -q -n 12 -p xdist tests/test_decode.py tests/test_precision.py tests/test_formats.py > "$OUT/tests.log" 2>&1
tail -2 "$OUT/tests.log"; grep -E "^(FAILED|ERROR)|^E  " "$OUT/tests.log" | head -8
timeout 100 python3 -m replaygen bench --variants mamba2 --batches 256 --L 16 --budget-s 70 \
    --out "$OUT/bench256" > "$OUT/bench256.log" 2>&1
grep "^mamba2" "$OUT/bench256.log"
timeout 100 python3 -m replaygen bench --variants mamba2,gdn,kda --batches 1 --L 16 --budget-s 70 \
    --out "$OUT/bench1" > "$OUT/bench1.log" 2>&1
grep "^mamba2\|^gdn\|^kda" "$OUT/bench1.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log bench256 bench1 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
