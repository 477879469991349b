#!/usr/bin/env bash
# Ran as session 41's call 1 (H100); the diff is applied since f6db982 (blocked only where a
# key-chunk decode reads the copy), so it no longer applies on main.
# For session 41 (issue 4; prepared in session 40, not run). Session 40's timing-only probe
# (calls 9-10, H100): the FP8 read copy read as if stored in 32-key blocks made the
# key-chunk decode's non-flush step 1.15-1.19x faster (GDN 4B, GDN 122B, Mamba-2 Nano).
# bench/proto/s40_read_key_blocks.diff stores it that way for real (StateFormat.key_block:
# an FP8 read copy with K a multiple of 32 is [K / 32, V, 32] per value head; every
# writer and reader indexes it through m.value_offsets / m.word_offsets; the runtime's
# read_values gives the [V, K] view). This applies it on the device, runs its GPU tests,
# then times it against the committed templates. The base templates index the same
# buffer row by row, consistently, so both versions compute the same thing; amortised
# times include the fold launch, which now writes the blocks.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
B=bench/ab_templates/s40_base
rm -rf $B && mkdir -p $B && cp templates/*.j2 $B/
patch -s -p1 < bench/proto/s40_read_key_blocks.diff || { echo "the diff does not apply"; exit 3; }
python3 -m replaygen build --all > /dev/null
timeout 200 python3 -m pytest -q tests/test_formats.py tests/test_precision.py \
    -k "load_state or word or key_chunks or read_products or (matches_reference and (gdn or mamba2))" > "$OUT/pytest.log" 2>&1
tail -2 "$OUT/pytest.log"
timeout 300 python3 bench/template_ab.py --templates $B,templates --rounds 3 \
    --cases gdn:qwen3.5-4b:fp8,mamba2:nemotron3-nano-4b:fp8,gdn:qwen3.5-122b-a10b:fp8,kda:kimi-linear-48b:fp8 \
    --out "$OUT/ab_key_blocks" > "$OUT/ab_key_blocks.log" 2>&1
grep "^gdn\|^mamba2\|^kda" "$OUT/ab_key_blocks.log" | cut -c1-400
