#!/usr/bin/env bash
# Session 37, if calls a-c found read_mma faster for some variant: the tuner's phase 4c
# there (GDN 4B in value tiles, KDA), tables in $OUT/tables. For GDN and Mamba-2 the plan's
# structure for FP8 read copies (plan._pick_decode_template: key chunks) would then move to
# value tiles, with these tables; precision_bench.py then gives issue 4's table.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
tune_decode gdn qwen3.5-4b fp8 200 vtiles
tune_decode kda kimi-linear-48b fp8 200
grep -E "^phase|replay_decode +256 " "$OUT/tune.log" | tail -20 | cut -c1-230
