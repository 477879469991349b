#!/usr/bin/env bash
# Session 9, second device call: the key-chunk decode's stream accumulates [DBV, BKT / 4]
# partial sums with FFMA chains (formats.grouped_dot; read-copy words: [DBV, words]) and
# reduces across threads once per value tile. CUDA tests (GDN, Mamba-2), the fp32 decode
# re-tuned at batch 256 (GDN 4B, Mamba-2 Nano) and GDN's FP8 row read copy (call 1 ran
# out of budget before its separate-flush phase), then the issue 5 suite's rows.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
timeout 80 python3 -m pytest -q tests/test_formats.py tests/test_precision.py tests/test_decode.py \
    -p no:cacheprovider -k "word_products or gdn or mamba2" -x -n 8 > "$OUT/pytest-cuda.log" 2>&1
echo "pytest exit $?" >> "$OUT/pytest-cuda.log"; tail -3 "$OUT/pytest-cuda.log"
for vcrb in "gdn qwen3.5-4b - 80" "mamba2 nemotron3-nano-4b - 80" "gdn qwen3.5-4b fp8 130"; do
    set -- $vcrb
    read_opt=(); [ "$3" != - ] && read_opt=(--read-dtype "$3")
    timeout $(( $4 + 25 )) python3 -m replaygen tune --variant "$1" --config "$2" --L 16 \
        "${read_opt[@]}" --kernels replay_decode --batches 256 --budget-s "$4" >> "$OUT/tune.log" 2>&1
done
grep -A1 "^configuration\|budget" "$OUT/tune.log" | grep -v "^--"
mkdir -p "$OUT/tables" && for v in gdn mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
timeout 90 python3 -m replaygen bench --variants gdn,mamba2 --batches 256 --L 16 --budget-s 60 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^| gdn\|^| mamba2" "$OUT/bench/bench.md" | head -8
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables bench *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
