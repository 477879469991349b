#!/usr/bin/env bash
# Session 16, sixth device call (the last ~300 s of the session's device time): the GPU
# test files call 5 did not reach before its timeout (decode and precision), with the
# control-word barrier.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
timeout 170 python3 -m pytest -q -rs tests/test_decode.py tests/test_precision.py > "$OUT/tests.log" 2>&1
tail -5 "$OUT/tests.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
