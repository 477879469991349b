#!/usr/bin/env bash
# Session 24, seventh device call: Mamba-2 Nano's verify tuned at T = 2 and 4 (its
# verify took 0.85 ms there untuned, call 6), then spec_bench for Mamba-2 at T = 2 and 4,
# batch 256 and 512, with the correctness check.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
for T in 2 4; do
    timeout 80 python3 -m replaygen tune --variant mamba2 --config nemotron3-nano-4b --L 16 \
        --max-drafts $T --kernels verify --batches 256 --budget-s 35 >> "$OUT/tune.log" 2>&1
done
grep "verify  *256" "$OUT/tune.log" | tail -4
mkdir -p "$OUT/tables" && cp generated/mamba2/tuning.json "$OUT/tables/mamba2.json"
timeout 120 python3 bench/spec_bench.py --variants mamba2 --drafts 2,4 --batches 256,512 --skip-accuracy --out "$OUT/spec_t24" > "$OUT/spec_t24.log" 2>&1
grep "^BENCH\|^CHECK\|rror" "$OUT/spec_t24.log" | cut -c1-230
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log spec_t24 tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
