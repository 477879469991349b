#!/usr/bin/env bash
# Session 28, fourth device call: the tuned launches' correctness test on the GPU; KDA's
# L = 8 decode at batches 64 and 512 re-tuned (call c's audit flagged both; its re-sweep
# ran out of time); then the whole issue 5 suite (all geometries, batches 1-512,
# L = 8, 16, 32, graphs and eager) on the audited tables.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 60 python3 -m pytest -q tests/test_tuning.py -k "tuned_launches or tabled_launch" > "$OUT/tests.log" 2>&1
tail -1 "$OUT/tests.log"
timeout 75 python3 -m replaygen tune --variant kda --config kimi-linear-48b --L 8 \
    --kernels replay_decode --batches 64,512 --budget-s 50 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && cp generated/kda/tuning.json "$OUT/tables/kda.json"
grep -E "replay_decode +[0-9]+ " "$OUT/tune.log" | cut -c1-220
timeout 300 python3 -m replaygen bench --eager --budget-s 250 --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep -c "^mamba2\|^gdn\|^kda" "$OUT/bench.log"; grep "L=16  batch=256\|L=16  batch=1 " "$OUT/bench.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log bench tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
