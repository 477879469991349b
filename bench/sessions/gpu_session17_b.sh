#!/usr/bin/env bash
# Session 17, second device call: (1) kv1 (bench/ab_templates/kv1, carried: the
# value-tile verify's head phase with one key-axis reduction per key draft instead of two
# per draft and no full-tile row selects) against the shipped templates, KDA and GLA at
# T = 8, batch 256, at the tabled launch and at more warps; (2) the GPU tests that call 1
# found failing (a stale generated/ tree at 0bf5eb4; the sm_90 no-spill check) and the
# speculative tests, whose several-warps fold test now includes [64]/w4 and [64]/w8.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
filt() { grep -v Warning "$1" | grep -v "return replaygen\|kern = \|replaygen.load\|^ *$" | tail -"$2"; }
K=bench/ab_templates/kv1
timeout 260 python3 bench/template_ab.py --kernel verify --rounds 3 --out "$OUT/vab" \
    --templates "templates,$K,$K@num_warps=2,$K@num_warps=4" \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 > "$OUT/vab.log" 2>&1
filt "$OUT/vab.log" 8
timeout 260 python3 -m pytest -q -n 8 -p xdist tests/test_compile_sm90.py tests/test_generator.py \
    tests/test_speculative.py --durations=5 > "$OUT/tests.log" 2>&1
tail -12 "$OUT/tests.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log vab 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
