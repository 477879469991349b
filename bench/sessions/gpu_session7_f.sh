#!/usr/bin/env bash
# Session 7, sixth device call: the decode's fold launch with 2 programs per (row, value
# head) (runtime.DECODE_FOLD_SPLIT; call 5's one program per tile was slower), its
# cursors published by a second launch. CUDA precision tests; precision_bench timings.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
timeout 70 python3 -m pytest -q tests/test_precision.py -p no:cacheprovider \
    -x -n 8 > "$OUT/pytest-cuda.log" 2>&1
echo "pytest exit $?" >> "$OUT/pytest-cuda.log"; tail -3 "$OUT/pytest-cuda.log"
timeout 120 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+nvfp4,fp16sr+nvfp4 > "$OUT/prec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/prec/precision_bench.md"; grep -c "ok\": false" "$OUT/prec.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d prec *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
