#!/usr/bin/env bash
# Session 25, first device call: the commit's fold split over programs per (row, value
# head) (Kernels.commit_split): GPU tests of the speculative protocol (the split test at
# real concurrency), the split swept for every variant at T = 8, batch 256 and 512, with a
# bit-identity check per split; then the T = 4 verify of GDN, KDA and GLA tuned at batch
# 256 (untuned until now; Mamba-2's went 0.879 -> 0.360 ms so in session 24).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 200 python3 -m pytest -q -n 14 -p xdist tests/test_speculative.py tests/test_devmath.py \
    > "$OUT/tests.log" 2>&1
tail -3 "$OUT/tests.log"
timeout 240 python3 bench/commit_split_bench.py --out "$OUT/split" > "$OUT/split.log" 2>&1
grep -v "^BENCH\|^{" "$OUT/split.log" | tail -45
for V in gdn:qwen3.5-4b kda:kimi-linear-48b gla:gla-1.3b; do
    timeout 70 python3 -m replaygen tune --variant ${V%%:*} --config ${V##*:} --L 16 \
        --max-drafts 4 --kernels verify --batches 256 --budget-s 30 >> "$OUT/tune.log" 2>&1
done
grep "verify  *256" "$OUT/tune.log" | tail -6
mkdir -p "$OUT/tables" && for v in gdn kda gla; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
