#!/usr/bin/env bash
# Session 62, ~8 min, any card (an H200 first). gpu_session61_e.sh (the conventional step's
# grid in fla's order, and the fp32 replay decodes' grids head first; see its header) with
# one more conventional version: fla's order plus evict-first state loads and stores
# (bench/proto/s62_conv_evict_first.diff, on top of s61_conv_grid_order.diff). The
# conventional step reads and writes each state tile once, so its ~512 MB per step (GDN 4B,
# batch 256) need not displace the token inputs and outputs from the 50 MB L2.
# Interpreter check: outputs and states bit-identical to the shipped template.
# One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
folder bench/ab_templates/conv_order bench/proto/s61_conv_grid_order.diff
folder bench/ab_templates/conv_evict bench/proto/s61_conv_grid_order.diff
patch -s -d bench/ab_templates/conv_evict -p2 < bench/proto/s62_conv_evict_first.diff
timeout "${AB_S:-230}" python3 bench/template_ab.py --kernel conventional_decode --rounds "${AB_ROUNDS:-3}" \
    --cases gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-nano-4b:fp32,mamba2:nemotron3-super-120b:fp32,kda:kimi-linear-48b:fp32 \
    --templates "templates,bench/ab_templates/conv_order,bench/ab_templates/conv_evict,templates@BV=8+num_warps=1,bench/ab_templates/conv_order@BV=8+num_warps=1" \
    --out "$OUT/ab_conv_order" > "$OUT/ab_conv_order.log" 2>&1
echo "rc=$?"; grep -E "^(mamba2|gdn|kda|gla):" "$OUT/ab_conv_order.log" | cut -c1-400
folder bench/ab_templates/replay_order bench/proto/s61_replay_grid_order.diff
AB_ROUNDS=${AB_ROUNDS:-3} ab replay_order ${AB_REPLAY_S:-200} \
    gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-nano-4b:fp32,mamba2:nemotron3-super-120b:fp32,kda:kimi-linear-48b:fp32 \
    "templates,bench/ab_templates/replay_order"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
