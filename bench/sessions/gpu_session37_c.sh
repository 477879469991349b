#!/usr/bin/env bash
# Session 37: the same A/B for GLA (K = 256: [64, 256] e4m3 tiles, 16 KB per stage;
# offline, half the tabled launch's instructions per program).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
MMA_AB_TIMEOUT=400 mma_ab gla gla-1.3b fold_split=4 64/4/2 64/4/3 128/4/1 128/4/2 128/8/1
