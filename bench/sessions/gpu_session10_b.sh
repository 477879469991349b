#!/usr/bin/env bash
# Session 10, second device call: the format tests compiled (version 23's e2m1 quantiser,
# the fp16x2 word products), the fp32 + NVFP4 decodes re-tuned (their fold launch changed),
# then the issue 4 timings (precision_bench) and the issue 5 rows with call 1's tables.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
timeout 150 python3 -m pytest -q tests/test_formats.py > "$OUT/test_formats.log" 2>&1
tail -2 "$OUT/test_formats.log"
tune_decode gdn qwen3.5-4b nvfp4 85
tune_decode mamba2 nemotron3-nano-4b nvfp4 85
grep -A1 "^configuration\|budget" "$OUT/tune.log" | grep -v "^--"
timeout 130 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+nvfp4,fp32+fp8row,fp16sr+nvfp4 > "$OUT/prec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/prec/precision_bench.md"; grep -c "ok\": false" "$OUT/prec.log"
timeout 70 python3 -m replaygen bench --variants gdn,mamba2 --batches 256 --L 16 --budget-s 40 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^| gdn\|^| mamba2" "$OUT/bench/bench.md" | head -6
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables prec bench *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
