#!/usr/bin/env bash
# Session 17, third device call: the sm_90 compile check and the generated-tree check
# alone (call 2's run of them beside the speculative tests was cut by its timeout at 98%:
# with pytest-xdist every worker starts the compile child at collection).
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
timeout 420 python3 -m pytest -q tests/test_compile_sm90.py tests/test_generator.py --durations=3 \
    > "$OUT/tests.log" 2>&1
tail -8 "$OUT/tests.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
