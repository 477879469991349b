#!/usr/bin/env bash
# Session 7, third device call: NVFP4 read copies now decode in key chunks with the flush
# in a fold launch of its own (plan.FUSED_FLUSH false). Tune their decode at batch 256
# (GDN 4B, Mamba-2 Nano; fp32 checkpoint); the CUDA precision tests; precision_bench's
# checks and timings of the read copies with those tables.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
for vc in "gdn qwen3.5-4b" "mamba2 nemotron3-nano-4b"; do
    set -- $vc
    timeout 110 python3 -m replaygen tune --variant "$1" --config "$2" --L 16 --read-dtype nvfp4 \
        --kernels replay_decode --batches 256 --budget-s 95 >> "$OUT/tune.log" 2>&1
done
grep "replay_decode \|phase\|budget" "$OUT/tune.log"
mkdir -p "$OUT/tables" && for v in gdn mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
timeout 100 python3 -m pytest -q tests/test_precision.py -p no:cacheprovider -x -n 8 > "$OUT/pytest-cuda.log" 2>&1
echo "pytest exit $?" >> "$OUT/pytest-cuda.log"; tail -3 "$OUT/pytest-cuda.log"
timeout 180 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+fp8row,fp32+nvfp4,fp16sr+nvfp4 > "$OUT/prec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/prec/precision_bench.md"; grep -c "ok\": false" "$OUT/prec.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables prec *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
