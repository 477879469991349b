#!/usr/bin/env bash
# Session 27, third device call, with calls 1-2's tables: issue 4's timings of KDA's and
# GLA's read copies (their word-path decodes), GDN 4B's FP8-row amortised step with its
# fold entry in use, and the precision GPU tests under the new tables.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 250 python3 bench/precision_bench.py --out "$OUT/prec" --variants kda,gla \
    --checks fp32+nvfp4,fp32+fp8row,fp16sr+nvfp4 > "$OUT/prec.log" 2>&1
sed -n '/## Correctness/,$p' "$OUT/prec/precision_bench.md"
timeout 100 python3 bench/precision_bench.py --out "$OUT/prec_gdn" --variants gdn \
    --checks fp32+fp8row > "$OUT/prec_gdn.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/prec_gdn/precision_bench.md"
timeout 110 python3 -m pytest -q -n 14 -p xdist tests/test_precision.py > "$OUT/tests.log" 2>&1
tail -3 "$OUT/tests.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log prec prec_gdn 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
