#!/usr/bin/env bash
# Session 6, fourth device call: FP8 row read-copy tables where there were none, through
# all four phases: GDN Qwen3.5-4B at batch 1, 8 and 64 (they fell back to the batch-256
# entry), the Qwen3.5-122B and Nemotron-3 Super geometries at 256 and 512.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
tune() {   # variant, config, batches, budget
    timeout $(($4 + 40)) python3 -m replaygen tune --variant "$1" --config "$2" --L 16 \
        --read-dtype fp8 --kernels replay_decode --batches "$3" --budget-s "$4" >> "$OUT/tune.log" 2>&1
}
tune gdn qwen3.5-4b 1,8,64 90
tune gdn qwen3.5-122b-a10b 256,512 110
tune mamba2 nemotron3-super-120b 256,512 110
grep "replay_decode\|phase\|budget" "$OUT/tune.log"
mkdir -p "$OUT/tables" && for v in gdn mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
tar czf "$OUT/data.tgz" -C "$OUT" tables tune.log gpu.txt
rm -rf "$OUT/tables" "$OUT/tune.log" "$OUT/gpu.txt"
