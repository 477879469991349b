#!/usr/bin/env bash
# Session 21, fifth device call: KDA's T = 8 verify launch re-tuned on the new window
# (call 3's budget was spent compiling), and the GPU decode and precision tests of KDA and
# GLA (the printer now writes a key-axis value over a per-token scalar as the value times
# one quotient, in every value-tile kernel).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 115 python3 -m replaygen tune --variant kda --config kimi-linear-48b --L 16 --max-drafts 8 \
    --kernels verify --batches 256 --budget-s 85 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && cp generated/kda/tuning.json "$OUT/tables/kda.json"
grep "T8" "$OUT/tune.log" | tail -3
timeout 150 python3 -m pytest -q -n 8 -p xdist tests/test_decode.py tests/test_precision.py -k "kda or gla" > "$OUT/tests.log" 2>&1
tail -3 "$OUT/tests.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
