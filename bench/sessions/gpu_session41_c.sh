#!/usr/bin/env bash
# Session 41, call 6 (issue 4; run on the working tree with the diff applied): NVFP4 read copies of key-chunk decodes stored in 32-key
# blocks, as the FP8 ones since f6db982 (session 40's probe, H100: GDN NVFP4 non-flush
# 1.068x with 64-key word blocks and row-major block scales; here 16-byte value blocks
# and 2-scale block-scale blocks, both one contiguous run per [rows, 32-key] chunk).
# It applies bench/proto/s41_nvfp4_key_blocks.diff on the device (the plan's one-line
# switch; the templates' row_offsets and the runtime's read_copy handle NVFP4 units since
# session 41), runs its GPU tests, then an A/B against a base folder whose
# row_offsets keeps NVFP4 copies in rows (the same buffers indexed row by row,
# consistently, so both compute the same outputs and checkpoints; amortised times
# include the fold launch, which writes the blocks).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
patch -s -p1 < bench/proto/s41_nvfp4_key_blocks.diff || { echo "the diff does not apply"; exit 3; }
python3 -m replaygen build --all > /dev/null
timeout 170 python3 -m pytest -q tests/test_formats.py tests/test_precision.py \
    -k "nvfp4 and (load_state or word or key_chunks or read_products or matches_reference or exact)" > "$OUT/pytest.log" 2>&1
tail -2 "$OUT/pytest.log"
B=bench/ab_templates/s41_nvfp4_rows
rm -rf $B && mkdir -p $B && cp templates/*.j2 $B/
sed -i 's/^{%- if f.key_block -%}$/{%- if f.key_block and f.kind == "fp8" -%}/' $B/_macros.j2
[ "$(diff templates/_macros.j2 $B/_macros.j2 | grep -c '^>')" = 1 ] || { echo "base folder not built"; exit 3; }
timeout 300 python3 bench/template_ab.py --templates $B,templates --rounds 3 \
    --cases gdn:qwen3.5-4b:nvfp4,mamba2:nemotron3-nano-4b:nvfp4,gdn:qwen3.5-122b-a10b:nvfp4,mamba2:nemotron3-super-120b:nvfp4 \
    --out "$OUT/ab_nvfp4_blocks" > "$OUT/ab_nvfp4_blocks.log" 2>&1
grep "^gdn\|^mamba2" "$OUT/ab_nvfp4_blocks.log" | cut -c1-400
