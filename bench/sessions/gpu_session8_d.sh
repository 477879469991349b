#!/usr/bin/env bash
# Session 8, fourth device call: the fold launch after a separate-flush decode as a queue
# (fold_queued_kernel: the decode queues the rings it fills, the fold launch folds one
# value tile per item, spread over all its programs). CUDA precision and tuning tests;
# precision_bench timings; fold_launch_bench (NVFP4, every fold warps / stages); the
# suite's KDA / GDN / Mamba-2 rows at batch 256 (KDA's tuned fp32 decode flushes
# separately).
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
python3 -c 'import packaging' 2>/dev/null || \
    python3 -m pip install -q --no-deps --no-index bench/wheels/if-missing/*.whl 2>&1 | tail -3
timeout 100 python3 -m pytest -q tests/test_precision.py tests/test_tuning.py -p no:cacheprovider \
    -x -n 8 > "$OUT/pytest-cuda.log" 2>&1
echo "pytest exit $?" >> "$OUT/pytest-cuda.log"; tail -3 "$OUT/pytest-cuda.log"
timeout 130 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+nvfp4,fp16sr+nvfp4 > "$OUT/prec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/prec/precision_bench.md"; grep -c "ok\": false" "$OUT/prec.log"
timeout 100 python3 bench/fold_launch_bench.py --out "$OUT/fold" --reads fp32+nvfp4 > "$OUT/fold.log" 2>&1
echo "fold_launch_bench exit $?"; cut -c 60- "$OUT/fold/fold_launch_bench.md" 2>/dev/null || tail -5 "$OUT/fold.log"
timeout 150 python3 -m replaygen bench --variants kda,gdn,mamba2 --batches 256 --L 16 \
    --budget-s 120 --out "$OUT/bench" > "$OUT/bench.log" 2>&1
echo "bench exit $?"; grep -E "^\| (kda|gdn|mamba2)" "$OUT/bench/bench.md" | head -12
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d prec fold bench *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
