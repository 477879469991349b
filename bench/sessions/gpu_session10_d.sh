#!/usr/bin/env bash
# Session 10, fourth device call: the GDN error study again for the modes whose flush
# changed (version 23's e2m1 quantiser, version 24's Philox bits), 32K tokens as in
# bench/results/accuracy-gdn-2026-11-29; then the issue 5 rows at batch 1 and 256.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
timeout 230 python3 -m replaygen accuracy --variant gdn --tokens 32768 --rows 32 \
    --modes shared-nvfp4,fp32+nvfp4,fp16sr+nvfp4,bf16sr+fp8,fp16sr,fp16 --budget-s 200 \
    --out "$OUT/accuracy" > "$OUT/accuracy.log" 2>&1
tail -16 "$OUT/accuracy.log"; rm -f "$OUT"/accuracy/*.csv
timeout 150 python3 -m replaygen bench --variants gdn,mamba2 --batches 1,256 --L 16 --budget-s 100 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^| gdn\|^| mamba2" "$OUT/bench/bench.md" | head -12
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d accuracy bench *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
