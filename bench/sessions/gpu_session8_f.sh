#!/usr/bin/env bash
# Session 8, seventh device call: the NVFP4 read-copy decode (fp32 checkpoint; GDN 4B,
# Mamba-2 Nano) re-tuned at batch 256 for the PTX nibble decode (call 6), phase 5
# included; precision_bench's timings with the new tables.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
for vc in "gdn qwen3.5-4b" "mamba2 nemotron3-nano-4b"; do
    set -- $vc
    timeout 130 python3 -m replaygen tune --variant "$1" --config "$2" --L 16 \
        --read-dtype nvfp4 --kernels replay_decode --batches 256 --budget-s 100 >> "$OUT/tune.log" 2>&1
done
grep "replay_decode \|phase\|budget" "$OUT/tune.log"
mkdir -p "$OUT/tables" && for v in gdn mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
timeout 130 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+nvfp4 > "$OUT/prec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/prec/precision_bench.md"; grep -c "ok\": false" "$OUT/prec.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables prec *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
