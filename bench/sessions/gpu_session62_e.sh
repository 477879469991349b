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
# One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
folder bench/ab_templates/conv_spec_order bench/proto/s62_conv_spec_grid_order.diff
timeout "${AB_S:-200}" python3 bench/template_ab.py --kernel conventional_spec --rounds "${AB_ROUNDS:-3}" \
    --cases gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-nano-4b:fp32,mamba2:nemotron3-super-120b:fp32,kda:kimi-linear-48b:fp32 \
    --templates "templates,bench/ab_templates/conv_spec_order" \
    --out "$OUT/ab_conv_spec" > "$OUT/ab_conv_spec.log" 2>&1
echo "rc=$?"; grep -E "^(mamba2|gdn|kda|gla):" "$OUT/ab_conv_spec.log" | cut -c1-300
# The verify kernels and the separate fold (no queue) read their (rows, heads) grids rows
# first too: bench/proto/s62_fold_verify_grid_order.diff reads them heads first (as the
# replay decodes since dc03b99). --kernel fold: a flush of L - 1 records and a commit of
# T_MAX drafts; --kernel verify: T_MAX drafts past L/2 records.
folder bench/ab_templates/fv_order bench/proto/s62_fold_verify_grid_order.diff
timeout "${AB_FOLD_S:-150}" python3 bench/template_ab.py --kernel fold --rounds "${AB_ROUNDS:-3}" \
    --cases gdn:qwen3.5-4b:fp32,mamba2:nemotron3-nano-4b:fp32,kda:kimi-linear-48b:fp32 \
    --templates "templates,bench/ab_templates/fv_order" --out "$OUT/ab_fold_order" > "$OUT/ab_fold_order.log" 2>&1
echo "rc=$?"; grep -E "^(mamba2|gdn|kda|gla):" "$OUT/ab_fold_order.log" | cut -c1-300
timeout "${AB_VERIFY_S:-150}" python3 bench/template_ab.py --kernel verify --rounds "${AB_ROUNDS:-3}" \
    --cases gdn:qwen3.5-4b:fp32,kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 \
    --templates "templates,bench/ab_templates/fv_order" --out "$OUT/ab_verify_order" > "$OUT/ab_verify_order.log" 2>&1
echo "rc=$?"; grep -E "^(mamba2|gdn|kda|gla):" "$OUT/ab_verify_order.log" | cut -c1-300
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
