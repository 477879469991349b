#!/usr/bin/env bash
# Session 14, second device call. (1) The GDN key-chunk decode A/B (bench/ab_templates,
# gdn-x-NOTES.md: x1 = the stream takes the raw q / k and raw record keys, the decays and
# the probes' factors scale each value tile's sums once; x4 = x1 + the stream's probes
# sliced from the head-level rows (no per-chunk probe loads) and the record chunk in the
# chunk's layout; x5 = x4 + the tile's v and u records loaded before the stream; offline
# sm_90 GDN 4B: 487 -> 338 / 352 / 351 instructions per 32-key chunk, 210 -> 168
# registers; templates@maxnreg=168 is the occupancy control). (2) KDA's gate records per
# step in fp16 (2 bytes per channel instead of the cumulative fp32 record's 4: amortised
# 2.546 -> ~2.48 MB per token) on the value-tile decode, against the tabled cumulative
# records: call 1 showed KDA's decode is not instruction-bound (22% fewer loop
# instructions, the same time), so bytes are the lever.
source "$(dirname "$0")/gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
filt() { grep -v Warning "$1" | grep -v "return replaygen\|kern = \|replaygen.load\|^ *$" | tail -"$2"; }
timeout 300 python3 bench/template_ab.py --cases gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32 --rounds 3 --out "$OUT/ab_gdn" \
    --templates templates,templates@maxnreg=168,bench/ab_templates/gdn-x1,bench/ab_templates/gdn-x4@maxnreg=168,bench/ab_templates/gdn-x5@maxnreg=168 \
    > "$OUT/ab_gdn.log" 2>&1
filt "$OUT/ab_gdn.log" 2
timeout 220 python3 bench/config_ab.py --variant kda --geometry kimi-linear-48b --out "$OUT/cab" \
    --configs "gate_records=cumulative;gate_records=step+g=fp16" \
    --launches "16/1/3/sep,16/1/3,32/2/3/sep" > "$OUT/cab.log" 2>&1
filt "$OUT/cab.log" 6
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d ab_gdn cab *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
