#!/usr/bin/env bash
# Session 11, third device call: version 25 with one fold program per queued block (the
# plan's fold_split 1, call 2's fastest): the issue 4 timings, then re-tunes of the
# fp32 + NVFP4 decodes (phase 6 tries the fold splits), then their timings again.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
prec() {   # prec NAME CHECKS
    timeout 140 python3 bench/precision_bench.py --out "$OUT/$1" --variants gdn,mamba2 \
        --checks "$2" > "$OUT/$1.log" 2>&1
    sed -n '/## Timings/,$p' "$OUT/$1/precision_bench.md"; grep -c "ok\": false" "$OUT/$1.log"
}
prec prec fp32+nvfp4,fp32+fp8row,fp16sr+nvfp4
tune_decode gdn qwen3.5-4b nvfp4 100
tune_decode mamba2 nemotron3-nano-4b nvfp4 100
grep -A1 "^configuration\|budget" "$OUT/tune.log" | grep -v "^--"
prec prec-tuned fp32+nvfp4
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables prec prec-tuned *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
