#!/usr/bin/env bash
# Session 56, <= 9 min, dispatching on the card (a call for nvidia-h200 may get an H100).
# On an H200: gpu_session55_b.sh's issue 4 item (Mamba-2 Nano's FP8 read-copy decode swept
# on this card, then issue 4's Mamba-2 table; commit $OUT/mamba2_tuning.json if it wins).
# On another card: gpu_session54_a.sh (the card's own fp32 decode entries for Mamba-2 Nano
# at batches 64 and 512 and KDA at 1 and 8, then the suite's rows). One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
if grep -q "H200" "$OUT/gpu.txt"; then
    exec bash "$(dirname "$0")/gpu_session55_b.sh"
fi
exec bash "$(dirname "$0")/gpu_session54_a.sh"
