#!/usr/bin/env bash
# Session 40, call 11 (issue 4). Call 9's timing-only probe: the FP8 read copy read as if
# stored in 32-key blocks was 1.15-1.19x faster at the tabled chunks, so the fetch
# pattern (each 128-byte row in four 32-byte visits, apart in time) costs that much.
# Without a new layout: templates (uncommitted when run) prefetch the program's read-copy
# rows into L2 as whole lines before the head phase (prefetch.global.L2); P
# (bench/ab_templates/s40_P, per value tile) is not timed: the device budget was spent. Against the committed templates (s40_base, carried), then the GPU tests
# of the read paths on templates.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
B=bench/ab_templates/s40_base
P=bench/ab_templates/s40_P
timeout 120 python3 bench/template_ab.py --templates $B,templates --rounds 3 \
    --cases gdn:qwen3.5-4b:fp8,gdn:qwen3.5-4b:nvfp4,mamba2:nemotron3-nano-4b:fp8,mamba2:nemotron3-nano-4b:nvfp4 \
    --out "$OUT/ab_prefetch_l2" > "$OUT/ab_prefetch_l2.log" 2>&1
grep "^gdn\|^mamba2" "$OUT/ab_prefetch_l2.log" | cut -c1-420
timeout 90 python3 -m pytest -q -x tests/test_precision.py -k "key_chunks or fold_every or flush_never" > "$OUT/pytest.log" 2>&1
tail -2 "$OUT/pytest.log"
