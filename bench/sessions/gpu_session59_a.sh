#!/usr/bin/env bash
# Session 58 (for session 59), <= 9.5 min, meant for an H200 (none since session 54).
# 1. (H200 only) issue 4's table (GDN 4B, Mamba-2 Nano) with what has landed since
#    session 54 (int8 NVFP4 products, the fold's division-free block scales); the NVFP4
#    decodes of both and Nano's FP8 decode swept on this card (TUNE_S s each: the H200
#    entries predate both changes; Nano's FP8 sweep is session 55's pending one); the
#    table again. Commit $OUT/tables/{gdn,mamba2}.json where the second table wins.
# 2. (any card) the queued fold's tile loop pipelined 3 deep (Launch.fold_stages, since
#    session 58: `templates@fold_stages=3` on the tabled decode launch) against the tabled
#    launch on template_ab.py's seven cases, AB_ROUNDS rounds (default 6; session 58's H100
#    with bench/proto/s58_fold_pipelined_s3.diff: Mamba-2 Nano NVFP4 +2.2%, GDN 4B FP8
#    -1.1% in 3 rounds, the rest +-0.4%). Where it wins, a sweep (phase 7 of `replaygen
#    tune`) or an entry edited by hand takes it into the tables.
# 3. (any card) the NVFP4 decodes' tabled launches with their chunk stream pipelined 2 and
#    3 deep (num_stages; the tables have 1). The sweeps try depths in phase 2, before the
#    head-scores and register-cap phases (4d) that shaped these entries, so a deeper
#    stream under the head's record scores (GDN's H100 entry) was never timed; the
#    decode waits on memory at 16 warps per SM (ncu, session 58).
# One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if grep -q H200 "$OUT/gpu.txt"; then
    issue4_retune "${TUNE_S:-60}"
fi
AB_ROUNDS=${AB_ROUNDS:-6} ab fold_pipelined ${AB_S:-200} \
    gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-nano-4b:fp32,mamba2:nemotron3-super-120b:fp32,gdn:qwen3.5-4b:nvfp4,mamba2:nemotron3-nano-4b:nvfp4,gdn:qwen3.5-4b:fp8 \
    "templates,templates@fold_stages=3"
ab decode_stages ${AB2_S:-150} gdn:qwen3.5-4b:nvfp4,mamba2:nemotron3-nano-4b:nvfp4 \
    "templates,templates@num_stages=2,templates@num_stages=3"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
