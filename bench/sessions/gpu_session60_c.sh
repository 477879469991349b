#!/usr/bin/env bash
# Session 60, ~5 min, any card. Launch.record_block (session 60): the read-copy decodes'
# records' terms from the committed records only, in blocks of 4 or 8 rows, against the
# tabled launch and the tabled launch with head_scores (record blocks need it; the
# H200's GDN NVFP4 entry streams first instead), on issue 4's four read-copy cases
# (template_ab.py: check, then CUDA-graph medians at n = L/2 and amortised over a
# staggered cycle). Offline (sm_90, Triton 3.6, GDN 4B NVFP4 [128, 32] one warp): ~2,930
# instructions per program at n = 8 whole-ring, ~2,600 in blocks of 8.
# One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
HS="head_scores=True+stream_first=False"
AB_ROUNDS=${AB_ROUNDS:-3} ab record_blocks ${AB_S:-320} \
    gdn:qwen3.5-4b:nvfp4,mamba2:nemotron3-nano-4b:nvfp4,gdn:qwen3.5-4b:fp8,mamba2:nemotron3-nano-4b:fp8 \
    "templates,templates@$HS,templates@$HS+record_block=4,templates@$HS+record_block=8"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
