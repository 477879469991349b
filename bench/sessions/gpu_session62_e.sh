#!/usr/bin/env bash
# Session 62 (for session 63), ~8 min, any card (an H200 first). Issue 3's snapshot
# baseline (conventional_verify writes one state per draft, conventional_select installs
# the accepted one) still reads its (rows, HV, NV) grid rows first; the conventional step
# read slot-contiguously was 1.07-1.11x faster on the H100 (session 62, call d).
# bench/proto/s62_conv_spec_grid_order.diff reads both kernels' grids that way
# (interpreter: outputs, snapshots and pool bit-identical). template_ab.py --kernel
# conventional_spec: check, then CUDA-graph medians of T = 8 drafts, all accepted, on the
# five issue-5 geometries. If it wins, apply it: issue 3's ">= 5x the snapshot baseline"
# is then measured against the faster baseline (spec_rows afterwards).
# The verify kernels and the separate fold (no queue) read their (rows, heads) grids rows
# first too: bench/proto/s62_fold_verify_grid_order.diff reads them heads first (as the
# replay decodes since dc03b99). --kernel fold: a flush of L - 1 records and a commit of
# T_MAX drafts; --kernel verify: T_MAX drafts past L/2 records.
# One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
folder bench/ab_templates/conv_spec_order bench/proto/s62_conv_spec_grid_order.diff
AB_KERNEL=conventional_spec ab conv_spec ${AB_S:-200} \
    gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-nano-4b:fp32,mamba2:nemotron3-super-120b:fp32,kda:kimi-linear-48b:fp32 \
    "templates,bench/ab_templates/conv_spec_order"
folder bench/ab_templates/fv_order bench/proto/s62_fold_verify_grid_order.diff
AB_KERNEL=fold ab fold_order ${AB_FOLD_S:-150} \
    gdn:qwen3.5-4b:fp32,mamba2:nemotron3-nano-4b:fp32,kda:kimi-linear-48b:fp32 "templates,bench/ab_templates/fv_order"
AB_KERNEL=verify ab verify_order ${AB_VERIFY_S:-150} \
    gdn:qwen3.5-4b:fp32,kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 "templates,bench/ab_templates/fv_order"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
