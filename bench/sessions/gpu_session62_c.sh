#!/usr/bin/env bash
# Session 62, ~2 min on an H100, ~6 min on an H200. Launch.flush_order's programs with the
# value heads of one row in consecutive launch positions (launch_order.flush_first's
# HEADS_FASTEST; bench/proto/s62_flush_order_heads.diff), as the grids without a flush
# order now run (dc03b99): template_ab.py against the templates, on the fp32 decodes
# whose tabled launches set a flush order (GDN 4B on both cards; GDN 122B and Mamba-2
# Nano on the H100). On an H200, gpu_session62_b.sh runs first (the grid orders' A/Bs,
# the conventional launches re-swept, issue 5's rows).
# One tarball comes back (two on an H200: gpu_session62_b.sh's first).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    bash "$(dirname "$0")/gpu_session62_b.sh" && mv "$OUT/data.tgz" /tmp/data_b.tgz
    mkdir -p "$OUT/b" && mv /tmp/data_b.tgz "$OUT/b/data.tgz"
fi
folder bench/ab_templates/flush_heads bench/proto/s62_flush_order_heads.diff
AB_ROUNDS=${AB_ROUNDS:-3} ab flush_heads ${AB_S:-150} \
    gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-nano-4b:fp32 \
    "templates,bench/ab_templates/flush_heads"
tar czf /tmp/data.tgz --exclude=./b -C "$OUT" . && find "$OUT" -mindepth 1 -maxdepth 1 ! -name b -exec rm -rf {} + && mv /tmp/data.tgz "$OUT/"
