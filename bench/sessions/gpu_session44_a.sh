#!/usr/bin/env bash
# For session 44 (issues 3 and 4), H200 only, one call of ~8-9 min (session 43 got no
# H200: its A/Bs ran on H100s). 1. GDN 4B's FP8 decode re-tuned, the whole sweep (~100 s
# for one configuration on the H200, session 41 call 3): phase 4d tries Launch.head_scores
# (H100 A/B: 1.024x amortised at a cap of 128), phases 5-6 the fold launch. Commit
# $OUT/tables/gdn.json if its entry is faster than the table's. 2. Issue 4's table for GDN
# and Mamba-2 (precision_bench --quick; FP8 amortised 3.36x in session 41, target 3.5x).
# 3. Issue 3's T = 8 table for the four variants (the window split at n, 8786c2f; KDA
# was 1.30x a decode step in session 41).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
grep -q H200 "$OUT/gpu.txt" || { echo "not an H200: nothing run"; exit 3; }
timeout 60 python3 -m pytest -q -x tests/test_decode.py -k head_scores > "$OUT/tests.log" 2>&1; tail -1 "$OUT/tests.log"
tune_decode gdn qwen3.5-4b fp8 ${TUNE_S:-150}
grep -E "read_fp8row__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | tail -2 | cut -c1-260
grep "^phase\|budget" "$OUT/tune.log" | cut -c1-100
timeout 220 python3 bench/precision_bench.py --out "$OUT/precision" --variants gdn,mamba2 --quick > "$OUT/precision.log" 2>&1
grep -A8 "^| variant | config | decode" "$OUT/precision/precision_bench.md" | cut -c1-250
timeout 150 python3 bench/spec_bench.py --variants kda,gla,gdn,mamba2 --drafts 8 --batches 256 --skip-accuracy \
    --out "$OUT/spec" > "$OUT/spec.log" 2>&1
grep -A6 "^| variant | batch" "$OUT/spec/spec_bench.md"
# (at most 8 files come back: everything in one archive, the tuned GDN table beside it)
cp "$OUT/tables/gdn.json" "$OUT/gdn_tuning.json" 2>/dev/null
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name gdn_tuning.json -delete && mv /tmp/data.tgz "$OUT/"
