#!/usr/bin/env bash
# Session 12, fourth device call. Calls 2-3 (bench/template_ab.py): loading the records'
# gates without waiting for the cursor (v3) never lost more than noise and is now in every
# launch; issuing the stream before the records' decays (v2) won ~5% on some
# configurations and lost as much on others, so it is a launch field now
# (Launch.stream_first, tuner phase 1b). Re-tune the batch-256 fp32 decodes of issue 5's
# four GDN / Mamba-2 geometries and GDN's FP8 row read copy, time issue 5's rows, and run
# the decode and tuning tests on the H200.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
tune_decode mamba2 nemotron3-nano-4b none 75
tune_decode gdn qwen3.5-4b none 75
tune_decode mamba2 nemotron3-super-120b none 45
tune_decode gdn qwen3.5-122b-a10b none 45
tune_decode gdn qwen3.5-4b fp8 45
grep -A1 "^configuration\|budget" "$OUT/tune.log" | grep -v "^--"
timeout 100 python3 -m replaygen bench --variants gdn,mamba2 --batches 256 --L 16 --budget-s 70 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^| gdn\|^| mamba2" "$OUT/bench/bench.md" | head -6
timeout 70 python3 -m pytest -q -x tests/test_tuning.py tests/test_decode.py \
    -k "tuned_launches or real_geometry or stream_first" > "$OUT/test_decode.log" 2>&1
tail -2 "$OUT/test_decode.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables bench *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
