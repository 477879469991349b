#!/usr/bin/env bash
# Session 40, call 5 (issue 4). Calls 2 and 4 (H100): neither 25-40% fewer stream
# instructions nor more programs per SM (register caps 96/80/64: 0.89/0.73/0.56x) made
# GDN 4B's FP8 non-flush decode faster. ncu (call 3): 8.4 cycles per issued instruction,
# a program lives ~19 us for ~4300 instructions. Where its warps wait: call 3's report's
# source page, split at the first cp.async (bench/ncu_phases.py). Then deeper word streams
# (the pipeline drains at each value tile's end) and one value tile per program (BV = 128),
# on the committed templates, for GDN 4B and Mamba-2 Nano FP8 (the cases' tabled launches
# with those fields replaced). Carry: bench/ab_templates/s40_fp8.ncu-rep.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
ncu -i bench/ab_templates/s40_fp8.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > "$OUT/fp8_source.csv.gz"
python3 bench/ncu_phases.py "$OUT/fp8_source.csv.gz" --top 25 > "$OUT/fp8_phases.txt" 2>&1
head -40 "$OUT/fp8_phases.txt" | cut -c1-200
V=templates,templates@num_stages=4,templates@num_stages=6,templates@BV=128,templates@BV=128+num_stages=4
timeout 300 python3 bench/template_ab.py --templates $V --rounds 3 \
    --cases gdn:qwen3.5-4b:fp8,mamba2:nemotron3-nano-4b:fp8 --out "$OUT/ab_stages" > "$OUT/ab_stages.log" 2>&1
grep "^gdn\|^mamba2" "$OUT/ab_stages.log" | cut -c1-600
