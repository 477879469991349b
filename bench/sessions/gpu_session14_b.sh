#!/usr/bin/env bash
# Session 14, second device call: three A/Bs in one call (machines were scarce).
# (1) The GDN key-chunk decode (bench/ab_templates, gdn-x-NOTES.md): x1 = the stream takes
# the raw q / k and raw record keys, the decays and the probes' factors scale each value
# tile's sums once; x4 = x1 + the stream's probes sliced from the head-level rows (no
# per-chunk probe loads) and the record chunk in the chunk's layout; offline sm_90 GDN 4B:
# 487 -> 338 / 352 instructions per 32-key chunk, 210 -> 168 registers;
# templates@maxnreg=168 is the occupancy control.
# (2) The value-tile verify (KDA, GLA): vv1 = the checkpoint tile loaded inside a tl.range
# loop instead of a hand prefetch into registers; vv3 = vv1 + the delta rule's per-tile
# chain of five products replaced by three independent ones from matrices built once per
# program, the records' row mask dropped; offline KDA T8: 661 -> 570 / 339 instructions
# per tile, 255 registers with 36 B spilled -> 240 / 230, no spills.
# (3) KDA's gate records per step in fp16 (2 bytes per channel instead of the cumulative
# fp32 record's 4: amortised 2.546 -> ~2.48 MB per token) against the tabled cumulative
# records: call 1 showed KDA's decode is not instruction-bound, so bytes are the lever.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
filt() { grep -v Warning "$1" | grep -v "return replaygen\|kern = \|replaygen.load\|^ *$" | tail -"$2"; }
AB=bench/ab_templates
timeout 180 python3 bench/template_ab.py --cases gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32 --rounds 3 --out "$OUT/ab_gdn" \
    --templates templates,templates@maxnreg=168,$AB/gdn-x1,$AB/gdn-x4@maxnreg=168 > "$OUT/ab_gdn.log" 2>&1
filt "$OUT/ab_gdn.log" 2
timeout 130 python3 bench/template_ab.py --kernel verify --cases kda:kimi-linear-48b:fp32 --rounds 3 --out "$OUT/vab_kda" \
    --templates templates,$AB/vv1,$AB/vv3,$AB/vv3@num_stages=2 > "$OUT/vab_kda.log" 2>&1
filt "$OUT/vab_kda.log" 1
timeout 80 python3 bench/template_ab.py --kernel verify --cases gla:gla-1.3b:fp32 --rounds 3 --out "$OUT/vab_gla" \
    --templates templates,$AB/vv3,$AB/vv3@num_stages=2 > "$OUT/vab_gla.log" 2>&1
filt "$OUT/vab_gla.log" 1
timeout 130 python3 bench/config_ab.py --variant kda --geometry kimi-linear-48b --out "$OUT/cab" --rounds 3 \
    --configs "gate_records=cumulative;gate_records=step+g=fp16" --launches "16/1/3/sep,16/1/3" > "$OUT/cab.log" 2>&1
filt "$OUT/cab.log" 4
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d ab_gdn vab_kda vab_gla cab *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
