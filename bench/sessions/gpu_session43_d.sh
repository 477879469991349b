#!/usr/bin/env bash
# For session 43 (issue 4), H200 only, ~9 min: `bash gpu_session43_d.sh VARIANT [TABLE_VARIANTS]`.
# Launch.head_scores is on main (the H100 A/B, call 1: GDN 4B FP8 amortised 1.024x at a
# cap of 128 or 104, GDN 122B 1.012x). The FP8 decode of VARIANT re-tuned with the whole
# sweep (phase 4d tries head scores; phases 5-6 the fold launch, now cheaper with the
# hardware e4m3 conversion), its GPU tests first, then issue 4's table for TABLE_VARIANTS
# (default: VARIANT). Commit $OUT/tables/VARIANT.json if its entry is faster.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
grep -q H200 "$OUT/gpu.txt" || { echo "not an H200: no tune"; exit 3; }
v=${1:?gdn or mamba2}
declare -A GEOM=([gdn]=qwen3.5-4b [mamba2]=nemotron3-nano-4b)
timeout 60 python3 -m pytest -q -x tests/test_decode.py -k head_scores > "$OUT/tests.log" 2>&1; tail -1 "$OUT/tests.log"
tune_decode "$v" "${GEOM[$v]}" fp8 ${TUNE_S:-280}
grep -E "read_fp8row__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | tail -2 | cut -c1-260
grep "^phase\|budget" "$OUT/tune.log" | cut -c1-120
timeout 200 python3 bench/precision_bench.py --out "$OUT/precision" --variants "${2:-$v}" --quick > "$OUT/precision.log" 2>&1
grep -A8 "^| variant | config | decode" "$OUT/precision/precision_bench.md" | cut -c1-250
