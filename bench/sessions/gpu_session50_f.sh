#!/usr/bin/env bash
# Session 50, any GPU, ~2-5 min (issue 3): gpu_session50_c.sh with prototype g
# (bench/proto/s50_vfold_g.diff, against main with the probe-row folding head). Call C's
# ncu of the folding launch: 18.6% of its stall samples sit on two register moves at the
# value-tile loop's back edge, each waiting (long scoreboard) for the records' value tile
# [16, BV] that Triton prefetches into registers, not shared memory: its only use is the
# fold's product as a transposed left operand. g takes that product transposed
# (kwᵀ·U, [BK, BV], the tile as a right operand, as x_rec reads it in the plain launch) and
# adds its transpose: offline the tile goes through cp.async, but the checkpoint tile's
# copies lose their 16-byte vectors (LDGSTS 27 -> 102) and 3 -> 2 programs per SM.
VF_NCU=0 VF_DIFFS="g" VF_LAUNCHES="g@num_stages=2 g@maxnreg=168+num_stages=2" \
    bash "$(dirname "$0")/gpu_session50_c.sh"
