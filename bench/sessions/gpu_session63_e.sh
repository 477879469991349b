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
# the templates before session 62's orders: the conventional step and the replay decodes
# rows first (since session 63 the templates take their order from launch_order.slot_major*,
# so the s61 diffs no longer reverse onto them)
old=bench/ab_templates/before_s62
folder $old bench/proto/s63_rows_first.diff
SUITE_TIMEOUT=180 suite suite gdn,mamba2,kda
AB_KERNEL=conventional_decode ab conv_order ${AB_S:-120} \
    gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-nano-4b:fp32,mamba2:nemotron3-super-120b:fp32,kda:kimi-linear-48b:fp32 \
    "$old,templates"
AB_ROUNDS=${AB_ROUNDS:-3} ab replay_order ${AB_REPLAY_S:-110} \
    gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-nano-4b:fp32,mamba2:nemotron3-super-120b:fp32,kda:kimi-linear-48b:fp32 \
    "$old,templates"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
