#!/usr/bin/env bash
# Session 8, sixth device call (the fifth exported a report; it had no script): the NVFP4 key-chunk decode with its packed bytes decoded
# four at a time in PTX (formats.e2m1_pairs_scaled; the interpreter cannot run it, so its
# CUDA tests are the check): CUDA test_formats.py and test_precision.py, then
# precision_bench's timings with the committed tables.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
timeout 100 python3 -m pytest -q tests/test_formats.py tests/test_precision.py -p no:cacheprovider \
    -x -n 8 > "$OUT/pytest-cuda.log" 2>&1
echo "pytest exit $?" >> "$OUT/pytest-cuda.log"; tail -3 "$OUT/pytest-cuda.log"
timeout 130 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+nvfp4,fp16sr+nvfp4 > "$OUT/prec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/prec/precision_bench.md"; grep -c "ok\": false" "$OUT/prec.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d prec *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
