#!/usr/bin/env bash
# Session 38: how far a two-launch verify could take KDA's T = 8 verify (issue 3: 1.31-1.36x
# a decode step against 1.1x; the verify reads its checkpoint at ~40% of the decode's
# bandwidth). Two timing-only prototypes, their outputs wrong by design (the check column
# says so; nothing is applied):
#   F = bench/proto/s38_verify_stream_floor.diff: the head phase's products loaded instead
#       of computed: the value-tile stream alone, as a two-launch verify's stream launch;
#   H = bench/proto/s38_verify_head_only.diff: the head phase alone, its products stored
#       (~11 KB per (row, head), as a head launch would write them for the stream).
# If F + H is well under the tabled verify, the two-launch verify is worth building; if F
# alone is near it, the stream is the limit and the head is not.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
folder() {   # folder NAME DIFF: the templates with DIFF applied
    rm -rf "$1" && mkdir -p "$1" && cp templates/*.j2 "$1"/ && patch -s -d "$1" -p2 < "$2"
}
F=bench/ab_templates/s38_floor && folder $F bench/proto/s38_verify_stream_floor.diff
H=bench/ab_templates/s38_head && folder $H bench/proto/s38_verify_head_only.diff
timeout 240 python3 bench/template_ab.py --kernel verify --templates templates,$F,$H --rounds 3 \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --out "$OUT/ab_floor" > "$OUT/ab_floor.log" 2>&1
tail -4 "$OUT/ab_floor.log" | cut -c1-260
