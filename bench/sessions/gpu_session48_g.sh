#!/usr/bin/env bash
# Session 48, for an H200 only (it exits at once elsewhere), one call of ~9 min:
# 1. issue 3's rows (spec_bench, T = 8, batch 256, every variant) with the probe-row head
#    and the solve by products (H100, session 48 call F: KDA 1.20x -> 1.15x a decode
#    step); KDA's T = 8 verify re-swept on this card, and its row again;
# 2. issue 4: Mamba-2 Nano's FP8 decode swept (the compile-twice fix of session 47 lets
#    it reach every phase) and its precision table (H200, session 41: FP8 amortised 3.36x,
#    target 3.5x; the H100 with its own entries 3.84x).
# Commit $OUT/{kda,mamba2}_tuning.json where the entries win.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
grep -q "H200" "$OUT/gpu.txt" || { echo "not an H200: $(tail -1 "$OUT/gpu.txt")"; exit 0; }
issue3_rows_and_kda 100
tune_decode mamba2 nemotron3-nano-4b fp8 ${TUNE_S:-200}
grep -E "read_fp8row__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | tail -2 | cut -c1-260
timeout 120 python3 bench/precision_bench.py --out "$OUT/precision" --variants mamba2 --quick > "$OUT/precision.log" 2>&1
grep -A8 "^| variant | config | decode" "$OUT/precision/precision_bench.md" | cut -c1-250
cp "$OUT/tables/mamba2.json" "$OUT/mamba2_tuning.json" 2>/dev/null
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name "*_tuning.json" -delete && mv /tmp/data.tgz "$OUT/"
