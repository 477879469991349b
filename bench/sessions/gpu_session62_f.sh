#!/usr/bin/env bash
# Session 62 (for session 63), ~3 min, any card (an H200 first). A timing probe for issue
# 5's replay steps (86-91% of the copy; the conventional step at 98-100% once its programs
# read one slot's tiles in order, session 62). The fp32 key-chunk decode reads each
# checkpoint row's 512 bytes in NK visits of BKT keys (128 or 256 bytes), spread over
# the program's stream: the pattern that a blocked layout fixed for the FP8 read copy
# (session 40: 1.15x; plan.read_format). bench/proto/s62_ckpt_blocks_timing_probe.diff
# reads the checkpoint as if it were stored in BKT-key blocks ([NK, V, BKT] per value
# head). Its outputs are wrong (the check shows it); only the times count. If the
# non-flush step gains, the checkpoint's layout becomes a StateFormat.key_block of its
# own (every writer and reader: fold, verify, materialize, load_state, quantize).
# One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
folder bench/ab_templates/ckpt_blocks bench/proto/s62_ckpt_blocks_timing_probe.diff
AB_ROUNDS=${AB_ROUNDS:-3} ab ckpt_blocks ${AB_S:-200} \
    gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-nano-4b:fp32,mamba2:nemotron3-super-120b:fp32 \
    "templates,bench/ab_templates/ckpt_blocks"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
