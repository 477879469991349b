#!/usr/bin/env bash
# Session 30, call g: two small changes to the key-chunk decode, A/B against the committed
# templates (bench/template_ab.py; the variants are bench/ab_templates/s30_*, carried):
# s30_pf prefetches the program's value-axis record rows into L2 before its cursor and
# stream (their load after the stream then waits on L2, not DRAM); s30_ef loads the
# checkpoint stream evict-first (non-flushing programs read it once).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 320 python3 bench/template_ab.py --templates templates,bench/ab_templates/s30_pf,bench/ab_templates/s30_ef \
    --cases gdn:qwen3.5-4b:fp32,mamba2:nemotron3-nano-4b:fp32 --rounds 3 --out "$OUT/ab" > "$OUT/ab.log" 2>&1
tail -12 "$OUT/ab.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
