#!/usr/bin/env bash
# Session 9, fourth device call: the read-copy tables the partial-sum stream still lacks:
# GDN fp32 + NVFP4 with a budget that reaches phase 5 (the fold launch's warps), both
# fp16-SR + NVFP4 configurations and Mamba-2 Nano's FP8 row read copy; then precision_bench.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
for vcrb in "gdn qwen3.5-4b nvfp4 90 -" "gdn qwen3.5-4b nvfp4 60 sr" \
            "mamba2 nemotron3-nano-4b nvfp4 60 sr" "mamba2 nemotron3-nano-4b fp8 70 -"; do
    set -- $vcrb
    sr=(); [ "$5" = sr ] && sr=(--state-dtype fp16 --stochastic)
    timeout $(( $4 + 25 )) python3 -m replaygen tune --variant "$1" --config "$2" --L 16 "${sr[@]}" \
        --read-dtype "$3" --kernels replay_decode --batches 256 --budget-s "$4" >> "$OUT/tune.log" 2>&1
done
grep -A1 "^configuration\|budget" "$OUT/tune.log" | grep -v "^--"
mkdir -p "$OUT/tables" && for v in gdn mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
timeout 110 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+nvfp4,fp32+fp8row,fp16sr+nvfp4 > "$OUT/prec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/prec/precision_bench.md"; grep -c "ok\": false" "$OUT/prec.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables prec *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
