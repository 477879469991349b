#!/usr/bin/env bash
# Session 40, call 2 (issue 4). The read copies' key-chunk decode took its records'
# scores per chunk and per value tile, as the checkpoint's stream does, although they do
# not depend on the value tile: offline (sm_90, GDN 4B FP8 row, two value tiles per
# program) ~130 of the stream's 396 instructions per chunk iteration. Now (templates,
# version B) a program takes them once after its first tile's stream, in a key-chunk loop
# of its own (128 registers; stream 229 instructions per chunk); A takes them over the
# whole key axis at once (204 registers, 9 programs per SM; also at cap 128: 40 B of
# spill; not timed in this call). C: B with the FP8 words taken two at a time
# (formats.read_fp8_word_pairs_dot2_at: one fp16x2 chain of 16 keys per probe, widened
# once; GDN's stream 229 -> 197 instructions per chunk, Mamba-2's 257 -> 227). Base: the
# committed templates. The fp32 case is issue 4's denominator (its
# kernel is the same in every version). GPU tests of the read copies' decode first.
# Carry: bench/ab_templates/s40_base, s40_C.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
B=bench/ab_templates/s40_base
A=bench/ab_templates/s40_A
C=bench/ab_templates/s40_C
timeout 150 python3 -m pytest -q tests/test_formats.py tests/test_precision.py -k "word_pair or word_products or key_chunks or matches_reference or fold_every" \
    > "$OUT/pytest.log" 2>&1
tail -2 "$OUT/pytest.log"
timeout 230 python3 bench/template_ab.py --templates $B,templates,$C --rounds 3 \
    --cases gdn:qwen3.5-4b:fp8,gdn:qwen3.5-4b:nvfp4,gdn:qwen3.5-4b:fp32 --out "$OUT/ab_gdn" > "$OUT/ab_gdn.log" 2>&1
grep "^gdn" "$OUT/ab_gdn.log" | cut -c1-400
timeout 170 python3 bench/template_ab.py --templates $B,templates,$C --rounds 3 \
    --cases mamba2:nemotron3-nano-4b:fp8,mamba2:nemotron3-nano-4b:nvfp4,mamba2:nemotron3-nano-4b:fp32 \
    --out "$OUT/ab_mamba2" > "$OUT/ab_mamba2.log" 2>&1
grep "^mamba2" "$OUT/ab_mamba2.log" | cut -c1-400
