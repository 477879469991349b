#!/usr/bin/env bash
# Session 46, any GPU (meant for the H100 that comes), one call of ~8 min, after
# gpu_session46_a.sh: issue 5's other two geometries' fp32 decodes, GDN 122B and Mamba-2
# Super, swept on this card, with the suite's rows of all five geometries before (the
# tables as sent) and after, in the same run. Commit $OUT/tables/{gdn,mamba2}.json where
# they win.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
suite suite_before gdn,mamba2,kda
tune_decode gdn qwen3.5-122b-a10b none ${TUNE_S:-140}
tune_decode mamba2 nemotron3-super-120b none ${TUNE_S:-140}
grep -E "replay_decode +256 " "$OUT/tune.log" | cut -c1-260
suite suite_after gdn,mamba2,kda
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
