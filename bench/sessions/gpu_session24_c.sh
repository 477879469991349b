#!/usr/bin/env bash
# Session 24, fourth device call: the flushing rows' stream at FLUSH_STAGES, their
# records' values loaded per chunk (fewer registers held). GPU tests (decode,
# speculative, precision); a re-tune of GDN 4B's batch-256 decode with this kernel; the
# issue 5 suite for GDN and Mamba-2.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 150 python3 -m pytest -q -n 14 -p xdist tests/test_speculative.py tests/test_decode.py tests/test_precision.py > "$OUT/tests.log" 2>&1
tail -2 "$OUT/tests.log"; grep -E "^(FAILED|ERROR)|^E  " "$OUT/tests.log" | head -8
tune_decode gdn qwen3.5-4b none 75
grep "replay_decode  *256" "$OUT/tune.log" | tail -3
timeout 150 python3 -m replaygen bench --variants gdn,mamba2 --batches 1,256 --L 16 --budget-s 110 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^mamba2\|^gdn" "$OUT/bench.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log bench tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
