#!/usr/bin/env bash
# Prepared in session 33 (no device was lent): the key-chunk decode takes the records'
# scores in each program's first value tile only (scalar decays; templates after
# 9eabfe1). Offline (Triton 3.6, sm_90, bench/sass_count.py, the tabled launches): GDN
# 4B's chunk loop 421 instructions per chunk before, 403 in the first tile and 272 in the
# second after (the records' key loads stay in the pipelined loop, masked to the first
# tile); GDN 122B 419 -> 421 / 290; GDN 4B FP8 row 431 -> 440 / 293. Mamba-2's geometries
# stream one value tile per program (V 80 or 64 in a tile of 128): unchanged but for the
# branch, the control of this A/B. Make the base with
# `bash bench/ab_templates_at.sh 9eabfe1 s33_base` and carry bench/ab_templates/s33_base.
# Checked against the base (the same arithmetic: ~1e-7 expected), then timed A B A B;
# a case whose launch now spills (GDN 4B fp32 at its tabled maxnreg 200: 36 bytes, outside
# the chunk loop) also runs uncapped.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
B=bench/ab_templates/s33_base
timeout 300 python3 bench/template_ab.py --templates $B,templates,templates@maxnreg=None \
    --cases gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32,gdn:qwen3.5-4b:fp8,mamba2:nemotron3-nano-4b:fp32 \
    --rounds 3 --out "$OUT/ab" > "$OUT/ab.log" 2>&1
tail -14 "$OUT/ab.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
