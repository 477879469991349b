#!/usr/bin/env bash
# Session 46, for an H200 (on an H100 it re-sweeps what calls 1 and 4 swept), one call of
# ~9 min: issue 5's two fp32 decodes whose H100 sweeps beat the H200's entries on the H100
# (session 46: Mamba-2 Nano 1.10x amortised, [16, 32] cap 96 with head scores and the
# flushing programs first; KDA 1.05x, value tiles of 8 with the flush fused), swept on this
# card, with the suite's rows before and after in the same run (H200, session 31: Nano at
# 87% of the copy, KDA 82-83%; target 90%). Commit $OUT/tables/{mamba2,kda}.json where the
# after rows win.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
suite suite_before mamba2,kda
tune_decode mamba2 nemotron3-nano-4b none ${TUNE_S:-170}
tune_decode kda kimi-linear-48b none ${TUNE_S:-150}
grep -E "replay_decode +256 |over 1 s" "$OUT/tune.log" | cut -c1-260
suite suite_after mamba2,kda
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
