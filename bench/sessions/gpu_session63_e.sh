#!/usr/bin/env bash
# Session 63, ~7 min, for the last ~11 device minutes. On an H200: gpu_session62_b.sh
# without its conventional re-sweep (no time for it): the grid-order A/Bs against the
# templates before them (the conventional step at its tabled launch only), then issue
# 5's rows. On any other card: gpu_session63_c.sh's rows (issues 5, 3 and 4).
# One tarball comes back.
here="$(dirname "$0")"
if ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    bash "$here/gpu_session63_c.sh"
    exit
fi
source "$here/../gpu_env.sh"
export PYTHONPATH=.
old=bench/ab_templates/before_s62
rm -rf $old && mkdir -p $old && cp templates/*.j2 $old/ \
    && patch -R -s -d $old -p2 < bench/proto/s61_conv_grid_order.diff \
    && patch -R -s -d $old -p2 < bench/proto/s61_replay_grid_order.diff
SUITE_TIMEOUT=180 suite suite gdn,mamba2,kda
AB_KERNEL=conventional_decode ab conv_order ${AB_S:-120} \
    gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-nano-4b:fp32,mamba2:nemotron3-super-120b:fp32,kda:kimi-linear-48b:fp32 \
    "$old,templates"
AB_ROUNDS=${AB_ROUNDS:-3} ab replay_order ${AB_REPLAY_S:-110} \
    gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-nano-4b:fp32,mamba2:nemotron3-super-120b:fp32,kda:kimi-linear-48b:fp32 \
    "$old,templates"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
