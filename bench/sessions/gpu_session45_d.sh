#!/usr/bin/env bash
# Session 45, any GPU, one call of ~8-9 min, after gpu_session45_c.sh's A/B: Mamba-2 Nano's
# FP8 decode re-tuned on this card, the whole sweep (phase 4d: head scores; phase 4e:
# programs over 2-12 value heads of a key group, Launch.heads), then issue 4's table for
# Mamba-2 (precision_bench --quick: FP8 amortised 3.36x on the H200 in session 41, target
# 3.5x) with the tuned entry. On an H200 commit $OUT/mamba2_tuning.json as
# generated/mamba2/tuning.json if its entry is faster than the table's; on an H100 the
# entry is the H100's own (the H200's stand-in until then).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
tune_decode mamba2 nemotron3-nano-4b fp8 ${TUNE_S:-200}
grep -E "read_fp8row__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | tail -2 | cut -c1-260
grep "^phase\|budget" "$OUT/tune.log" | cut -c1-100
timeout 200 python3 bench/precision_bench.py --out "$OUT/precision" --variants mamba2 --quick > "$OUT/precision.log" 2>&1
grep -A8 "^| variant | config | decode" "$OUT/precision/precision_bench.md" | cut -c1-250
cp "$OUT/tables/mamba2.json" "$OUT/mamba2_tuning.json" 2>/dev/null
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name mamba2_tuning.json -delete && mv /tmp/data.tgz "$OUT/"
