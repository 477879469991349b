#!/usr/bin/env bash
# Session 48, any GPU, one call of ~2 min (issue 3, KDA T = 8 verify; call A, H100: the head
# as probe rows 1.020x, the span guard ~1%). Template A/B at batch 256, the GPU's table's
# launch unless `@` overrides it, 3 rounds, checked against the shipped version first:
#   s48_chain         the window's output term through the solve taken once per program
#                     (A_v = S_d·M_v, A_x = S_d·M_x): out = X + A_v·V_d - A_x·X, so no
#                     value tile waits for its W_d (a product and a relayout) before its
#                     output (offline: 5912 instr, 245 regs, the tile loop unchanged)
#   s48_rows_chain    both (7048, 32 B spill)
#   ...@BV=32+num_stages=2   two [16, 16] tiles' chains per loop pass (8 programs per SM)
#   ...@head_launch=1 the two-launch verify; with s48_stream_floor the head launch does
#                     nothing (timing only: wrong outputs), so the time is the stream
#                     launch's alone: how much of the one launch the head costs on this GPU
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
A=bench/ab_templates
folder $A/s48_chain bench/proto/s48_chain.diff
folder $A/s48_rows bench/proto/s48_rows.diff
folder $A/s48_rows_chain bench/proto/s48_rows_chain.diff
folder $A/s48_floor bench/proto/s48_stream_floor.diff
folder $A/s48_chain_floor bench/proto/s48_chain.diff && patch -s -d $A/s48_chain_floor -p2 < bench/proto/s48_stream_floor.diff
V="templates,$A/s48_chain,$A/s48_rows_chain,$A/s48_rows"
V="$V,templates@BV=32+num_stages=2,$A/s48_chain@BV=32+num_stages=2"
V="$V,templates@head_launch=1,$A/s48_chain@head_launch=1,$A/s48_floor@head_launch=1,$A/s48_chain_floor@head_launch=1"
timeout 500 python3 bench/template_ab.py --kernel verify --templates "$V" \
    --cases kda:kimi-linear-48b:fp32 --rounds 3 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -25 "$OUT/ab_verify.log" | cut -c1-400
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
