#!/usr/bin/env bash
# Session 28, fifth device call (the last ~6 device minutes): call d's suite found KDA's
# L = 8 decode at batch 256 21% slower than tabled (0.2582 vs 0.2129 ms amortised: x1.18
# the conventional step) and its L = 32 decode at batch 64 slower than the conventional
# step (0.0880 vs 0.0765). Both re-tuned, then those suite rows re-measured.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 85 python3 -m replaygen tune --variant kda --config kimi-linear-48b --L 8 \
    --kernels replay_decode --batches 256 --budget-s 60 >> "$OUT/tune.log" 2>&1
timeout 85 python3 -m replaygen tune --variant kda --config kimi-linear-48b --L 32 \
    --kernels replay_decode --batches 64 --budget-s 60 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && cp generated/kda/tuning.json "$OUT/tables/kda.json"
grep -E "replay_decode +[0-9]+ " "$OUT/tune.log" | cut -c1-220
timeout 70 python3 -m replaygen bench --variants kda --L 8,32 --batches 64,256 --budget-s 50 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^kda" "$OUT/bench.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log bench tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
