#!/usr/bin/env bash
# Session 44, H200 only, ~5.5 min (the short form of gpu_session44_a.sh, for a session's
# last minutes): GDN 4B's FP8 decode re-tuned (phase 4d: head scores; TUNE_S default 120),
# then issue 4's table for GDN alone with the tuned entry. Commit $OUT/gdn_tuning.json as
# generated/gdn/tuning.json if its entry is faster than the table's.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
grep -q H200 "$OUT/gpu.txt" || { echo "not an H200: nothing run"; exit 3; }
tune_decode gdn qwen3.5-4b fp8 ${TUNE_S:-120}
grep -E "read_fp8row__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | tail -2 | cut -c1-260
grep "^phase\|budget" "$OUT/tune.log" | cut -c1-100
timeout 160 python3 bench/precision_bench.py --out "$OUT/precision" --variants gdn --quick > "$OUT/precision.log" 2>&1
grep -A5 "^| variant | config | decode" "$OUT/precision/precision_bench.md" | cut -c1-250
cp "$OUT/tables/gdn.json" "$OUT/gdn_tuning.json" 2>/dev/null
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name gdn_tuning.json -delete && mv /tmp/data.tgz "$OUT/"
