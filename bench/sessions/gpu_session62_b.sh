#!/usr/bin/env bash
# Session 62, ~7 min, any card (an H200 first). The grid orders of session 61's prototypes
# are now the templates' (the H100's A/B, session 62 calls b and c: the conventional step
# 1.048-1.080x faster on all five issue-5 geometries, the fp32 replay decodes of Mamba-2
# Super 1.032x and KDA 1.020x amortised, GDN 122B and Nano even).
# 1. The same A/Bs on this card: the templates against the templates before (the two
#    diffs reversed), the conventional step at its tabled launch and at [8, K] one warp.
# 2. The conventional step's launches re-swept for the new order (batch 256, L = 16, the
#    five geometries; `replaygen tune --kernels conventional_decode`), tables to $OUT/tables.
# 3. Issue 5's rows (`replaygen bench`, batch 256, L = 16) with the new tables.
# One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
grid_order_abs ${AB_S:-200} ${AB_REPLAY_S:-150} BV=8+num_warps=1
mkdir -p "$OUT/tables"
for vc in "gdn qwen3.5-4b" "gdn qwen3.5-122b-a10b" "mamba2 nemotron3-nano-4b" "mamba2 nemotron3-super-120b" "kda kimi-linear-48b"; do
    set -- $vc
    timeout $(( ${TUNE_S:-25} + 30 )) python3 -m replaygen tune --variant "$1" --config "$2" --L 16 \
        --kernels conventional_decode --batches 256 --budget-s "${TUNE_S:-25}" >> "$OUT/tune.log" 2>&1
    echo "tune $2 rc=$?"
    for v in gdn mamba2 kda gla; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
done
grep -E "budget|replaygen tune:|conventional_decode +256 " "$OUT/tune.log" | cut -c1-220
SUITE_TIMEOUT=200 suite suite gdn,mamba2,kda
pack_out
