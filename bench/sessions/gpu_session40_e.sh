#!/usr/bin/env bash
# Session 40, call 6 (issue 4). Call 5's ncu source page (H100): 42% of the FP8 non-flush
# decode's warp-stall samples sat on three instructions waiting (long scoreboard) for the
# token's and the records' chunk loads, plain loads issued and waited on in every chunk.
# Now the read streams load each chunk's an iteration ahead (prefetch_chunk); offline
# sm_90 GDN 4B FP8: 165 registers (12 programs per SM; at cap 128 no spill, 16 per SM).
# A/B against the committed templates (s40_base), with and without cap 128; then E, the
# same prefetch in the fp32 checkpoint's stream (issue 5's decode; offline 200 registers
# under the table's cap), for GDN 4B and Mamba-2 Nano. GPU tests of the read paths first.
# Carry: bench/ab_templates/s40_base, s40_E.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
B=bench/ab_templates/s40_base
E=bench/ab_templates/s40_E
timeout 170 python3 -m pytest -q -x tests/test_precision.py -k "key_chunks or fold_every or flush_never" > "$OUT/pytest.log" 2>&1
tail -2 "$OUT/pytest.log"
timeout 280 python3 bench/template_ab.py --templates $B,templates,templates@maxnreg=128 --rounds 3 \
    --cases gdn:qwen3.5-4b:fp8,gdn:qwen3.5-4b:nvfp4,mamba2:nemotron3-nano-4b:fp8,mamba2:nemotron3-nano-4b:nvfp4 \
    --out "$OUT/ab_prefetch" > "$OUT/ab_prefetch.log" 2>&1
grep "^gdn\|^mamba2" "$OUT/ab_prefetch.log" | cut -c1-420
timeout 120 python3 bench/template_ab.py --templates $B,$E --rounds 3 \
    --cases gdn:qwen3.5-4b:fp32,mamba2:nemotron3-nano-4b:fp32 --out "$OUT/ab_prefetch_fp32" > "$OUT/ab_prefetch_fp32.log" 2>&1
grep "^gdn\|^mamba2" "$OUT/ab_prefetch_fp32.log" | cut -c1-300
