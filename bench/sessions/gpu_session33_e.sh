#!/usr/bin/env bash
# Prepared in session 33 (no device was lent): two template changes against the session's
# starting templates (9eabfe1; make the base with `bash bench/ab_templates_at.sh 9eabfe1
# s33_base` and carry bench/ab_templates/s33_base). Offline (Triton 3.6, sm_90,
# bench/sass_count.py, the tabled launches; bench/results/session33-2026-12-05/):
# (1) the key-chunk decode takes the records' scores in each program's first value tile
#     only (scalar decays): GDN 4B's chunk loop 421 instructions before, 406 in the first
#     tile and 275 in the second after; GDN 122B 419 -> 424 / 293. Mamba-2's geometries
#     stream one value tile per program: the control.
# (2) the word products' fp16 probe scales once per program: GDN 4B FP8 row 431 -> 401 /
#     254, NVFP4 700 -> 654, Mamba-2 Nano NVFP4 440 -> 413 per chunk iteration.
# Checked against the base (fp32 arithmetic reordered, and the read copies' probes at
# another power of two: ~1e-6 and ~1e-4 expected), then timed A B A B. The fp32 GDN
# launches now spill 44-60 bytes at their tabled register caps (outside the chunk loop):
# they also run uncapped.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
B=bench/ab_templates/s33_base
timeout 240 python3 bench/template_ab.py --templates $B,templates,templates@maxnreg=None \
    --cases gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-nano-4b:fp32 \
    --rounds 3 --out "$OUT/ab_fp32" > "$OUT/ab_fp32.log" 2>&1
tail -10 "$OUT/ab_fp32.log"
timeout 200 python3 bench/template_ab.py --templates $B,templates \
    --cases gdn:qwen3.5-4b:fp8,gdn:qwen3.5-4b:nvfp4,mamba2:nemotron3-nano-4b:nvfp4 \
    --rounds 3 --out "$OUT/ab_read" > "$OUT/ab_read.log" 2>&1
tail -10 "$OUT/ab_read.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab_fp32 ab_read 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
