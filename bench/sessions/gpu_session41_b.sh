#!/usr/bin/env bash
# Session 41, call 2 (issue 4), after f6db982 (FP8 read copies of key-chunk decodes stored
# in 32-key blocks). The blocked copy's GPU tests on the committed state, then:
# - on an H200, the re-tune of both FP8 row read copies' decodes (the chunk choice may
#   move with the layout: the sweep tries BKT 16-128) and the tuned decodes timed with
#   their fp32 reads (issue 4's non-flush ratios);
# - elsewhere (ratios only, the H200's tables), the same timings without the re-tune.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 200 python3 -m pytest -q tests/test_formats.py tests/test_precision.py \
    -k "load_state or word or key_chunks or read_products or (matches_reference and (gdn or mamba2 or kda))" > "$OUT/pytest.log" 2>&1
tail -2 "$OUT/pytest.log"
if grep -q H200 "$OUT/gpu.txt"; then
    tune_decode gdn qwen3.5-4b fp8 ${TUNE_S:-100}
    tune_decode mamba2 nemotron3-nano-4b fp8 ${TUNE_S:-100}
    grep -E "read_fp8row__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | tail -4 | cut -c1-250
fi
timeout 150 python3 bench/template_ab.py --templates templates --rounds 3 \
    --cases gdn:qwen3.5-4b:fp8,gdn:qwen3.5-4b:fp32,mamba2:nemotron3-nano-4b:fp8,mamba2:nemotron3-nano-4b:fp32 \
    --out "$OUT/ab_tuned" > "$OUT/ab_tuned.log" 2>&1
grep "^gdn\|^mamba2" "$OUT/ab_tuned.log" | cut -c1-300
