#!/usr/bin/env bash
# Session 10, third device call: the format tests compiled (version 24: four Philox outputs per call,
# random_bits_tile), the fp16-SR + NVFP4 decodes re-tuned (their fold launch changed),
# then the issue 4 timings (precision_bench) and the stochastic-rounding precision tests.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
timeout 150 python3 -m pytest -q tests/test_formats.py > "$OUT/test_formats.log" 2>&1
tail -2 "$OUT/test_formats.log"
tune_decode gdn qwen3.5-4b nvfp4 90 sr
tune_decode mamba2 nemotron3-nano-4b nvfp4 90 sr
grep -A1 "^configuration\|budget" "$OUT/tune.log" | grep -v "^--"
timeout 130 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+nvfp4,fp32+fp8row,fp16sr+nvfp4 > "$OUT/prec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/prec/precision_bench.md"; grep -c "ok\": false" "$OUT/prec.log"
timeout 100 python3 -m pytest -q -x tests/test_precision.py -k "sr or stochastic" > "$OUT/test_precision_sr.log" 2>&1; tail -2 "$OUT/test_precision_sr.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables prec bench *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
