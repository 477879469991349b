#!/usr/bin/env bash
# Session 13, third device call, after call 2's A/B: the value-tile decode's stream
# pipelined by tl.range (KDA 0.2136 -> 0.1903 ms amortised in the A/B) and the key-chunk
# decode's fused flush pipelined at min(STREAM_STAGES, 2) (GDN 4B 0.1715 -> 0.1688). The
# decode tests compiled on the H200, KDA's decode re-tuned (its stages now set the
# stream's depth), issue 5's rows, issue 4's timings.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
timeout 100 python3 -m pytest -q -x tests/test_tuning.py tests/test_decode.py \
    -k "tuned_launches or real_geometry or stream_first" > "$OUT/test_decode.log" 2>&1
tail -2 "$OUT/test_decode.log"
tune_decode kda kimi-linear-48b none 90
grep -A1 "^configuration" "$OUT/tune.log" | grep -v "^--"
timeout 150 python3 -m replaygen bench --variants gdn,mamba2,kda --batches 256 --L 16 --budget-s 110 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^| gdn\|^| mamba2\|^| kda" "$OUT/bench/bench.md" | head -6
timeout 120 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+nvfp4,fp32+fp8row > "$OUT/prec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/prec/precision_bench.md" | head -30; grep -c "ok\": false" "$OUT/prec.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables bench prec *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
