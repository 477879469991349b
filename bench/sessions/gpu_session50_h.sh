#!/usr/bin/env bash
# Session 50, any GPU, ~1-4 min (issue 3): gpu_session50_c.sh with prototype j
# (bench/proto/s50_vfold_j.diff, KDA only: ring_u by name). Call C's ncu: 18.6% of the
# folding launch's stall samples wait at the value-tile loop's back edge for the records'
# value tile, which Triton prefetches into registers. Prototype g (the product transposed,
# the tile through cp.async) lost (call D: 0.74 against 0.54 ms: the checkpoint tile's
# copies lost their 16-byte vectors). j loads the records' values of every tile once,
# before the stream ([BL, V], 16 registers' worth at 4 warps), and selects each tile's
# columns in the loop: no load in the loop but the cp.async ones (offline at the table's
# launch: 168 registers, 3 programs per SM, 399 -> 543 instructions per tile).
VF_NCU=0 VF_DIFFS="j" VF_LAUNCHES="j@num_stages=4 j@num_stages=2" \
    bash "$(dirname "$0")/gpu_session50_c.sh"
