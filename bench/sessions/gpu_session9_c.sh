#!/usr/bin/env bash
# Session 9, third device call: re-tunes after the partial-sum stream (call 2): NVFP4 read
# copies (GDN 4B, Mamba-2 Nano), Mamba-2 Super's fp32 decode (slower at its old launch in
# call 2), GDN 4B's fp32 decode with a budget that reaches phases 4 and 5; then the issue
# 4 timings (precision_bench) and the issue 5 rows with the new tables.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
for vcrb in "gdn qwen3.5-4b nvfp4 60" "mamba2 nemotron3-nano-4b nvfp4 60" \
            "mamba2 nemotron3-super-120b - 70" "gdn qwen3.5-4b - 110"; do
    set -- $vcrb
    read_opt=(); [ "$3" != - ] && read_opt=(--read-dtype "$3")
    timeout $(( $4 + 25 )) python3 -m replaygen tune --variant "$1" --config "$2" --L 16 \
        "${read_opt[@]}" --kernels replay_decode --batches 256 --budget-s "$4" >> "$OUT/tune.log" 2>&1
done
grep -A1 "^configuration\|budget" "$OUT/tune.log" | grep -v "^--"
mkdir -p "$OUT/tables" && for v in gdn mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
timeout 120 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+nvfp4,fp32+fp8row,fp16sr+nvfp4 > "$OUT/prec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/prec/precision_bench.md"; grep -c "ok\": false" "$OUT/prec.log"
timeout 60 python3 -m replaygen bench --variants gdn,mamba2 --batches 256 --L 16 --budget-s 40 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^| gdn\|^| mamba2" "$OUT/bench/bench.md" | head -6
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables prec bench *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
