#!/usr/bin/env bash
# Session 16, fifth device call: the control-word barrier in the read-copy and other
# decode configurations (bitwise check and times against v0s16 = templates/ at 4fafbbb,
# see gpu_session16_d.sh), and the GPU test files that exercise every kernel.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
filt() { grep -v Warning "$1" | grep -v "return replaygen\|kern = \|replaygen.load\|^ *$" | tail -"$2"; }
AB=bench/ab_templates
timeout 170 python3 bench/template_ab.py --rounds 3 --out "$OUT/dab" --templates "$AB/v0s16,templates" \
    --cases gdn:qwen3.5-4b:nvfp4,gdn:qwen3.5-4b:fp8,mamba2:nemotron3-nano-4b:nvfp4,mamba2:nemotron3-super-120b:fp32,gdn:qwen3.5-122b-a10b:fp32 \
    > "$OUT/dab.log" 2>&1
filt "$OUT/dab.log" 5
timeout 340 python3 -m pytest -q tests/test_speculative.py tests/test_decode.py tests/test_precision.py \
    > "$OUT/tests.log" 2>&1
tail -4 "$OUT/tests.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log dab 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
