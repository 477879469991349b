#!/usr/bin/env bash
# Session 7, fifth device call: the decode's fold launch (rings the decode kernel left
# full: separate flushes, NVFP4 read copies) split over value tiles, its cursors published
# by a second launch. The CUDA precision and tuning tests; precision_bench's timings.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
timeout 100 python3 -m pytest -q tests/test_precision.py tests/test_tuning.py -p no:cacheprovider \
    -x -n 8 > "$OUT/pytest-cuda.log" 2>&1
echo "pytest exit $?" >> "$OUT/pytest-cuda.log"; tail -3 "$OUT/pytest-cuda.log"
timeout 150 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+fp8row,fp32+nvfp4,fp16sr+nvfp4 > "$OUT/prec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/prec/precision_bench.md"; grep -c "ok\": false" "$OUT/prec.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d prec *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
