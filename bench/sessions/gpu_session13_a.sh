#!/usr/bin/env bash
# Session 13, first device call. Launch.stream_first now also serves programs of several
# value tiles: the decays are taken once, after the first tile's stream, inside the tile
# loop (so that loop-invariant code motion cannot put them in front of the stream again;
# offline sm_90 PTX: 2 of the 5 ex2 move behind the first cp.async). Run the tuned-launch
# test (2 tiles per program, flush fused, streaming first) compiled on the H200, re-tune
# the two-tile configurations (GDN 4B and 122B fp32, GDN FP8 row), time issue 5's rows.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
timeout 90 python3 -m pytest -q -x tests/test_tuning.py tests/test_decode.py \
    -k "tuned_launches or real_geometry or stream_first" > "$OUT/test_decode.log" 2>&1
tail -2 "$OUT/test_decode.log"
tune_decode gdn qwen3.5-4b none 100
tune_decode gdn qwen3.5-122b-a10b none 60
tune_decode gdn qwen3.5-4b fp8 70
grep -A1 "^configuration\|budget" "$OUT/tune.log" | grep -v "^--"
timeout 110 python3 -m replaygen bench --variants gdn,mamba2 --batches 256 --L 16 --budget-s 80 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^| gdn\|^| mamba2" "$OUT/bench/bench.md" | head -6
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables bench *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
