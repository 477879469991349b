#!/usr/bin/env bash
# Session 26, fifth and sixth device calls: issue 4's timings of KDA and GLA with call 4's tuned
# read-copy decodes, and the read-copy GPU tests under the new tables.
# (Call 5 timed the plan's launches: runtime._launch never looked up a quantised
# value-tile configuration in the tables. Call 6 ran it again with that lookup restored.)
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 240 python3 bench/precision_bench.py --out "$OUT/prec" --variants kda,gla \
    --checks fp32+nvfp4,fp32+fp8row > "$OUT/prec.log" 2>&1
sed -n '/## Correctness/,$p' "$OUT/prec/precision_bench.md"
timeout 100 python3 -m pytest -q -n 14 -p xdist tests/test_precision.py > "$OUT/tests.log" 2>&1
tail -3 "$OUT/tests.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log prec 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
