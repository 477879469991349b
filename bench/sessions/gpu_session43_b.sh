#!/usr/bin/env bash
# (Kept as the record of what ran: s42_head_scores.diff landed as 6965783 and was removed
# from bench/proto (it is at 76a1997); this script ran as call 1 of session 43.)
# For session 43 (issues 4 and 5), any GPU (~8 min; on an H100 with the H200's tables:
# ratios only). bench/proto/s42_head_scores.diff, applied here (plan, tuning, tune,
# templates, tests): Launch.head_scores, the key-chunk decode of scalar decays taking the
# records' scores once per program at the head instead of in every chunk of every value
# tile (offline sm_90, GDN 4B FP8 [64, 32] w1: chunk loop 399 -> 227 instructions, value
# tile 866 -> 638; 128 -> 159 registers, 12 programs per SM; capped at 128, no spill).
# Session 40's prototype of the same (B) ran 0.996-1.003x on the row-major copy (H100);
# the copy is in 32-key blocks since f6db982, and the tuner gets a phase (4d) for it.
# Offline (sm_90, Triton 3.6, bench/results/session42-2026-12-05/README.md): GDN 122B FP8
# 393 -> 229 per chunk at 125 registers; the fp32 decode (fused flush) grows instead, 2336
# -> 3272 instructions with a 16 B spill: its case is the control.
# Versions: the tabled launch; head scores (stream_first off); head scores at cap 128 (16
# programs per SM at one warp) and at 104 (19; offline no spill with head scores, where
# the tabled stream spills 16 B at 112: session 40's caps for more programs spilled).
# Decide: faster somewhere by > 2% -> commit the diff (it is off unless a table picks it)
# and re-tune those configurations (gpu_session42_b.sh runs phase 4d once it is in);
# else keep it as a diff.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
grep -q H200 "$OUT/gpu.txt" || export REPLAYGEN_TUNING_GPU="NVIDIA H200"
patch -s -p1 < bench/proto/s42_head_scores.diff && python3 -m replaygen build --all > /dev/null \
    || { echo "the diff does not apply"; exit 3; }
timeout 90 python3 -m pytest -q -x tests/test_decode.py -k head_scores > "$OUT/tests.log" 2>&1; tail -1 "$OUT/tests.log"
H="templates@stream_first=0+head_scores=1"
timeout 420 python3 bench/template_ab.py --templates "templates,$H,$H+maxnreg=128,$H+maxnreg=104" --rounds 3 \
    --cases gdn:qwen3.5-4b:fp8,gdn:qwen3.5-122b-a10b:fp8,gdn:qwen3.5-4b:fp32 \
    --out "$OUT/ab_head" > "$OUT/ab_head.log" 2>&1
grep "^gdn\|^mamba2" "$OUT/ab_head.log" | cut -c1-420
