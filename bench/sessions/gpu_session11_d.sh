#!/usr/bin/env bash
# Session 11, fourth device call: with the queued fold (version 25) a separate flush
# costs less, so re-tune the decodes where it competes (phase 4 tries it): GDN 4B and
# Mamba-2 Nano fp32 (issue 5's last 2%), and fp16-SR + NVFP4 (Mamba-2's went from
# 0.2107 to 0.2269 ms with the queued fold); then issue 5's rows and issue 4's timings,
# then the speculative and decode tests compiled on the H200 (the fold kernel's grid
# modes moved into a branch).
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
tune_decode gdn qwen3.5-4b none 80
tune_decode mamba2 nemotron3-nano-4b none 80
tune_decode gdn qwen3.5-4b nvfp4 80 sr
tune_decode mamba2 nemotron3-nano-4b nvfp4 80 sr
grep -A1 "^configuration\|budget" "$OUT/tune.log" | grep -v "^--"
timeout 90 python3 -m replaygen bench --variants gdn,mamba2 --batches 256 --L 16 --budget-s 50 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^| gdn\|^| mamba2" "$OUT/bench/bench.md" | head -6
timeout 100 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp16sr+nvfp4 > "$OUT/prec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/prec/precision_bench.md"; grep -c "ok\": false" "$OUT/prec.log"
timeout 120 python3 -m pytest -q -x tests/test_speculative.py tests/test_decode.py > "$OUT/test_spec_decode.log" 2>&1
tail -2 "$OUT/test_spec_decode.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables prec bench *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
