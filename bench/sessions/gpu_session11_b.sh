#!/usr/bin/env bash
# Session 11, second device call: the queued fold launch (version 25). The NVFP4 and
# tuned-launch tests compiled on the H200 (atomics across programs run concurrently
# there, one after another in the interpreter); then the issue 4 timings; then the
# fold launch at each (split, warps) in the step it serves.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
timeout 170 python3 -m pytest -q -x tests/test_precision.py tests/test_tuning.py \
    -k "nvfp4 or queued or tuned_launches" > "$OUT/test_queue.log" 2>&1
tail -2 "$OUT/test_queue.log"
timeout 150 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+nvfp4,fp16sr+nvfp4 > "$OUT/prec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/prec/precision_bench.md"; grep -c "ok\": false" "$OUT/prec.log"
timeout 220 python3 bench/fold_launch_bench.py --out "$OUT/fold" --variants gdn,mamba2 \
    --reads fp32+nvfp4 > "$OUT/fold.log" 2>&1
cat "$OUT/fold/fold_launch_bench.md" || tail -5 "$OUT/fold.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d prec fold *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
