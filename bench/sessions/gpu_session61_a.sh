#!/usr/bin/env bash
# Session 60 (for session 61), ~6 min, any card. Is the value-tile decode with word
# products the better NVFP4 decode for Mamba-2 Nano (80 value rows: the key chunks' 128-row
# tiles spend 37.5% of their word products on masked rows; [16, K] value tiles are
# exact and their probe words leave the tile loop, but they redo the value records' sums
# and the output's gate per tile, offline 5 x 395 instructions in the loop against the
# key chunks' 4 x 225; NOTES, session 60)? bench/config_ab.py: the default configuration
# at its tabled launch against `decode_structure=vtiles` at [16, K] tiles with word
# products and the flush in the fold launch (its fold at 4 warps, as the tabled key-chunk
# launch's), one and two warps, one and three stages; GDN 4B alike (128 rows: no masked
# rows to win back). If a value-tile launch wins, `replaygen tune --decode-structure vtiles`
# sweeps it and the plan's structure choice (_pick_decode_template) needs revisiting.
# One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
VT="read_dtype=nvfp4+decode_structure=vtiles"
for vg in "mamba2 nemotron3-nano-4b" "gdn qwen3.5-4b"; do
    set -- $vg
    timeout "${VT_AB_S:-170}" python3 bench/config_ab.py --variant "$1" --geometry "$2" --rounds 3 \
        --out "$OUT/vtiles_$1" --versions "read_dtype=nvfp4@tab;$VT@16/1/1/sep/words/fold_warps=4;$VT@16/2/1/sep/words/fold_warps=4;$VT@16/1/3/sep/words/fold_warps=4;$VT@16/2/3/sep/words/fold_warps=4" \
        > "$OUT/vtiles_$1.log" 2>&1
    echo "$1 rc=$?"; tail -8 "$OUT/vtiles_$1.log" | cut -c1-300
done
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
