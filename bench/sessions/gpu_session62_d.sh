#!/usr/bin/env bash
# Session 62, ~3 min: gpu_session62_c.sh cut to the session's last device minutes. The
# flush order with value heads fastest (bench/proto/s62_flush_order_heads.diff) against
# the templates on the fp32 decodes whose tabled launches set a flush order (GDN 4B on
# both cards; GDN 122B and Mamba-2 Nano on the H100); on an H200 first the conventional
# step's grid order against the templates before it (GDN 4B and KDA, two rounds).
# One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
cases=gdn:qwen3.5-4b:fp32
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    old=bench/ab_templates/before_s62
    rm -rf $old && mkdir -p $old && cp templates/*.j2 $old/ \
        && patch -R -s -d $old -p2 < bench/proto/s61_conv_grid_order.diff
    timeout 100 python3 bench/template_ab.py --kernel conventional_decode --rounds 2 \
        --cases gdn:qwen3.5-4b:fp32,kda:kimi-linear-48b:fp32 --templates "$old,templates" \
        --out "$OUT/ab_conv_order" > "$OUT/ab_conv_order.log" 2>&1
    echo "rc=$?"; grep -E "^(gdn|kda):" "$OUT/ab_conv_order.log" | cut -c1-300
else
    cases=$cases,gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-nano-4b:fp32
fi
folder bench/ab_templates/flush_heads bench/proto/s62_flush_order_heads.diff
AB_ROUNDS=${AB_ROUNDS:-3} ab flush_heads ${AB_S:-120} "$cases" "templates,bench/ab_templates/flush_heads"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
