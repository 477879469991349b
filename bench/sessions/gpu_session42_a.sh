#!/usr/bin/env bash
# For session 42 (issue 4), H200 only, ~9 min after the start. Session 41's NVFP4 32-key
# blocks (bench/proto/s41_nvfp4_key_blocks.diff; H100, the H200's tables) ran GDN 4B and
# Mamba-2 Super 1.05x amortised, Mamba-2 Nano 1.0x, and GDN 122B 0.89x at its plan's
# launch: it has no tuned NVFP4 entry at L = 16, and GDN 4B at that launch's shape lost
# too (0.985x). Here the 122B's NVFP4 decode is tuned in rows, then in blocks, and each
# layout is timed at its own tuned launch (the rows' launch passed to the rows' folder as
# an override: bench/common.py launch_override), with the blocks' launch on both as a
# third column; then the tabled cases of session 41's call 6 again, on the H200.
# Decision: blocks win at tuned launches everywhere -> apply the diff, commit
# $OUT/gdn_blocks.json as generated/gdn/tuning.json (and re-tune Mamba-2's NVFP4
# decodes); else keep rows and commit $OUT/gdn_rows.json (the 122B's first NVFP4 entry).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
grep -q H200 "$OUT/gpu.txt" || { echo "not an H200: no tune"; exit 3; }
CFG=gdn__H16_HV64_K128_V128__L16__state_fp32__read_nvfp4__rec_bf16
tune_decode gdn qwen3.5-122b-a10b nvfp4 ${TUNE_S:-120}
cp generated/gdn/tuning.json "$OUT/gdn_rows.json"
ROWS=$(python3 -c "import sys; sys.path.insert(0, 'bench'); import common
print(common.launch_override('$OUT/gdn_rows.json', '$CFG', 'replay_decode', 'NVIDIA H200', 256))") || exit 3
echo "rows' launch: $ROWS"
B=bench/ab_templates/s41_nvfp4_rows
rm -rf $B && mkdir -p $B && cp templates/*.j2 $B/
sed -i 's/^{%- if f.key_block -%}$/{%- if f.key_block and f.kind == "fp8" -%}/' $B/_macros.j2
[ "$(diff templates/_macros.j2 $B/_macros.j2 | grep -c '^>')" = 1 ] || { echo "base folder not built"; exit 3; }
patch -s -p1 < bench/proto/s41_nvfp4_key_blocks.diff || { echo "the diff does not apply"; exit 3; }
python3 -m replaygen build --all > /dev/null
tune_decode gdn qwen3.5-122b-a10b nvfp4 ${TUNE_S:-120}
cp generated/gdn/tuning.json "$OUT/gdn_blocks.json"
grep -E "read_nvfp4__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | cut -c1-250
timeout 150 python3 bench/template_ab.py --templates "$B@$ROWS,templates,$B" --rounds 3 \
    --cases gdn:qwen3.5-122b-a10b:nvfp4 --out "$OUT/ab_122b" > "$OUT/ab_122b.log" 2>&1
grep "^gdn" "$OUT/ab_122b.log" | cut -c1-500
timeout 200 python3 bench/template_ab.py --templates "$B,templates" --rounds 3 \
    --cases gdn:qwen3.5-4b:nvfp4,mamba2:nemotron3-nano-4b:nvfp4,mamba2:nemotron3-super-120b:nvfp4 \
    --out "$OUT/ab_tabled" > "$OUT/ab_tabled.log" 2>&1
grep "^gdn\|^mamba2" "$OUT/ab_tabled.log" | cut -c1-400
