#!/usr/bin/env bash
# Session 48, any GPU, one call of ~1.5 min (issue 3, KDA T = 8 verify; calls A and B, H100:
# the head as probe rows 1.020x / 1.029x over the shipped head, the window's output term
# through the solve no gain). Template A/B at batch 256, 3 rounds, checked first:
#   s48_rows2   s48_rows with the gate taken at the drafts' own rows only (f loaded at rows
#               i; the key rows' cumulative decays copied from rows i by a reshape and a
#               join, not recomputed: offline 6008 instr and no spill uncapped, 6992 with
#               a 56 B spill before)
# each at the H100's tabled launch (cap 224 registers: s48_rows spills 160 B there) and
# uncapped (@maxnreg=None: the H200's entry).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
A=bench/ab_templates
folder $A/s48_rows bench/proto/s48_rows.diff
folder $A/s48_rows2 bench/proto/s48_rows2.diff
V="templates,$A/s48_rows,$A/s48_rows2,templates@maxnreg=None,$A/s48_rows@maxnreg=None,$A/s48_rows2@maxnreg=None"
timeout 400 python3 bench/template_ab.py --kernel verify --templates "$V" \
    --cases kda:kimi-linear-48b:fp32 --rounds 3 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -25 "$OUT/ab_verify.log" | cut -c1-400
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
