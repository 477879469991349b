#!/usr/bin/env bash
# Session 46, any GPU (meant for the H100 that comes), one call of ~8 min: issue 5's GDN 4B
# and KDA fp32 decodes swept on this card (whole sweeps, phases 4d/4e included), with the
# suite's rows before (the tables as they are: on an H100 the H200's entries stand in) and
# after, in the same run. Session 46 call 1 did this for Mamba-2 Nano on an H100: its own
# entry ran 0.4345 ms amortised against the stand-in's 0.458-0.477 (1.70x the
# conventional step against 1.55x). Commit $OUT/tables/{gdn,kda}.json where they win.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
suite suite_before gdn,kda
tune_decode gdn qwen3.5-4b none ${TUNE_S:-140}
tune_decode kda kimi-linear-48b none ${TUNE_S:-150}
grep -E "replay_decode +256 " "$OUT/tune.log" | cut -c1-260
suite suite_after gdn,kda
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
