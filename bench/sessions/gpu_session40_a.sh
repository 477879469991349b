#!/usr/bin/env bash
# Session 40, call 2 (issue 4). The read copies' key-chunk decode took its records'
# scores per chunk and per value tile, as the checkpoint's stream does, although they do
# not depend on the value tile: offline (sm_90, GDN 4B FP8 row, two value tiles per
# program) ~130 of the stream's 396 instructions per chunk iteration. Now (templates,
# version B) a program takes them once after its first tile's stream, in a key-chunk loop
# of its own (128 registers; stream 229 instructions per chunk); A takes them over the
# whole key axis at once (204 registers, 9 programs per SM; also at cap 128: 40 B of
# spill). Base: the committed templates. The fp32 case is issue 4's denominator (its
# kernel is the same in every version). GPU tests of the read copies' decode first.
# Carry: bench/ab_templates/s40_base, bench/ab_templates/s40_A.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
B=bench/ab_templates/s40_base
A=bench/ab_templates/s40_A
timeout 150 python3 -m pytest -q -x tests/test_precision.py -k "key_chunks or matches_reference or fold_every" \
    > "$OUT/pytest.log" 2>&1
tail -2 "$OUT/pytest.log"
timeout 220 python3 bench/template_ab.py --templates $B,templates,$A,$A@maxnreg=128 --rounds 3 \
    --cases gdn:qwen3.5-4b:fp8,gdn:qwen3.5-4b:nvfp4,gdn:qwen3.5-4b:fp32 --out "$OUT/ab_gdn" > "$OUT/ab_gdn.log" 2>&1
grep "^gdn" "$OUT/ab_gdn.log" | cut -c1-400
timeout 170 python3 bench/template_ab.py --templates $B,templates,$A --rounds 3 \
    --cases mamba2:nemotron3-nano-4b:fp8,mamba2:nemotron3-nano-4b:nvfp4,mamba2:nemotron3-nano-4b:fp32 \
    --out "$OUT/ab_mamba2" > "$OUT/ab_mamba2.log" 2>&1
grep "^mamba2" "$OUT/ab_mamba2.log" | cut -c1-400
