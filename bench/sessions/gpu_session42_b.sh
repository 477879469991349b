#!/usr/bin/env bash
# For session 42 (issue 4), H200 only, ~8 min after the start: `bash gpu_session42_b.sh
# gdn` or `... mamba2`. Session 41's re-tune of the blocked FP8 read copies' decodes ran
# out of its 100 s budget in phase 4, before phases 5-6 (the fold launch's warps and
# split; an H100 sweep of those, call 9, found <= 1.2%). Here the whole sweep (300 s),
# then issue 4's table for that variant (precision_bench --quick: FP8 amortised 3.36x for
# both in session 41, target 3.5x). Commit $OUT/tables/VARIANT.json if its entry is faster.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
grep -q H200 "$OUT/gpu.txt" || { echo "not an H200: no tune"; exit 3; }
v=${1:?gdn or mamba2}
declare -A GEOM=([gdn]=qwen3.5-4b [mamba2]=nemotron3-nano-4b)
tune_decode "$v" "${GEOM[$v]}" fp8 ${TUNE_S:-300}
grep -E "read_fp8row__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | tail -2 | cut -c1-250
grep -c "^phase" "$OUT/tune.log"
timeout 150 python3 bench/precision_bench.py --out "$OUT/precision" --variants "$v" --quick > "$OUT/precision.log" 2>&1
grep -A8 "^| variant | config | decode" "$OUT/precision/precision_bench.md" | cut -c1-250
