#!/usr/bin/env bash
# Session 37, after gpu_session37_a.sh: the same A/B for KDA (the tabled word products
# against four tensor-core launches) and Mamba-2 Nano (V = 80: a [128, K] tile is 5/8
# used, two [64, K] tiles 5/8 too).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
mma_ab kda kimi-linear-48b fold_warps=1 64/4/2 128/4/1 128/4/2 128/8/1
mma_ab mamba2 nemotron3-nano-4b fold_warps=None 64/4/2 128/4/1 128/8/1
