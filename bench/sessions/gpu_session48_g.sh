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
nano_fp8_issue4 ${TUNE_S:-200} 120
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name "*_tuning.json" -delete && mv /tmp/data.tgz "$OUT/"
