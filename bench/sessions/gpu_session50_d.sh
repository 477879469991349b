#!/usr/bin/env bash
# Session 50, any GPU, ~2-6 min (issue 3): gpu_session50_c.sh with prototype e
# (bench/proto/s50_vfold_e.diff). Call A's ncu of KDA's folding verify launch: 52.8% of its
# stall samples and 89 M of its 147 M warp instructions are in the head, mostly long
# scoreboard waits on the drafts' loads, one draft at a time (drafts_in_order), at 3
# four-warp programs per SM; DRAM 65% of peak. e gives the folding launch the plain
# launch's head: the drafts as probe rows, each input loaded once as a [16, K] tile
# (offline at the table's launch: 3680 -> 3416 instructions, 159 -> 168 registers, still
# 3 programs per SM). Timed at the table's launch and three others; where it wins by
# >= 3%, applied, swept and issue 3's verify_folds row taken.
VF_NCU=0 VF_DIFFS="e" VF_LAUNCHES="e@BV=16+num_warps=2 e@num_stages=2 e@BV=16+num_warps=4" \
    bash "$(dirname "$0")/gpu_session50_c.sh"
